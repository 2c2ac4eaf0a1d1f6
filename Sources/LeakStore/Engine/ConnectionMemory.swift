/// What one pooled connection keeps from one read to the next, in one place: the commit graph
/// its reads learned (`CommitGraph`) and the leak keys' names (`KeyNameMemory`). Owned by the
/// connection (`SQLConnection.memory`), never copied out of it. Query code reads through it —
/// `keyNames(of:load:)` hands over what it keeps and asks `load` for the rest, `learn(_:)` takes
/// what a walk read — and the memory decides what it keeps: each fact is one no later upload can
/// change, or one each read checks again (the rules are with each type).
///
/// It forgets at one point, `beginRead(session:)`, which the engine calls where a read takes the
/// connection from its pool: everything when the connection's session is not the one it learned
/// in (a reset connection's database may not be the same one), each part when it has passed its
/// capacity (`StoreTuning.commitGraphFacts`, `keyNamesKept`). Inside a read it only grows, so a
/// walk reading the graph never sees it emptied under it.
package final class ConnectionMemory {
    private(set) var commitGraph = CommitGraph()
    private var keyNames = KeyNameMemory()
    /// The connection's session the facts were learned in (`beginRead(session:)`).
    private var session = 0
    /// Whether walks read and teach `commitGraph`: not on SQLite, whose walk checks a remembered
    /// graph with a statement over arrays (`unnest`) it does not have; its readers keep key names only.
    package let keepsGraph: Bool

    package init(keepsGraph: Bool = true) {
        self.keepsGraph = keepsGraph
    }

    /// The one point where the memory forgets: at the start of a read on the connection, whose
    /// session (counted up at each reset) is `session`.
    package func beginRead(session: Int) {
        if session != self.session {
            self.session = session
            commitGraph.forget()
            keyNames.forget()
            return
        }
        if commitGraph.factCount >= StoreTuning.commitGraphFacts { commitGraph.forget() }
        if keyNames.names.count >= StoreTuning.keyNamesKept { keyNames.forget() }
    }

    /// The names of `ids` (ids and names, counts zero, by id in `leak_keys`): those kept, and
    /// those `load` reads of the others (handed the unknown ids in ascending order), kept too.
    func keyNames(of ids: Set<Int64>, load: ([Int64]) throws -> [Int64: KeyCounts]) rethrows -> [Int64: KeyCounts] {
        var names: [Int64: KeyCounts] = [:]
        var unknown: [Int64] = []
        for id in ids {
            if let named = keyNames.names[id] { names[id] = named } else { unknown.append(id) }
        }
        guard !unknown.isEmpty else { return names }
        let read = try load(unknown.sorted())
        keyNames.learn(read)
        return names.merging(read) { known, _ in known }
    }

    /// What a walk read of the commit graph, kept as `CommitGraph` says.
    func learn(_ facts: [CommitGraph.Fact]) {
        for fact in facts { commitGraph.learn(fact) }
    }
}
