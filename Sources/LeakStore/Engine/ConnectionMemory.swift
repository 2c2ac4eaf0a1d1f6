/// What one pooled connection keeps from one read to the next, in one place: the commit graph
/// its reads learned (`CommitGraph`) and the leak keys' names (`KeyNameMemory`). Owned by the
/// connection (`SQLConnection.memory`), never copied out of it; each fact it holds is one no
/// later upload can change, or one each read checks again (the rules are with each type).
/// Forgotten all at once when the connection is reset (its database may not be the same one),
/// and each part when it passes its capacity (`StoreTuning.commitGraphFacts`, `keyNamesKept`).
package final class ConnectionMemory {
    var commitGraph = CommitGraph()
    var keyNames = KeyNameMemory()

    func forget() {
        commitGraph.forget()
        keyNames.forget()
    }
}
