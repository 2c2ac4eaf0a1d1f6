import LeakReport
@testable import LeakStore

/// Random runs' key states, stored both ways — upserted into a row-a-state table and packed
/// (`StateBlobs.append`) — for the tests that compare the packed layout's reads with the rows'.
enum RandomKeyStates {
    /// Stores one run of 1 to `maxKeys` random keys (scenario ids 1…`scenarios`, type ids
    /// 1…`types`) at a random commit 1…12 (its id that times `commitSpacing`) and environment 1…2,
    /// with random counts, sites and waits.
    static func storeRun(rows: CompactCheckWriter, writer: WriteSession, scenarios: Int64, types: Int64, maxKeys: Int,
                         commitSpacing: Int64 = 1, using generator: inout SplitMix64) throws {
        let commitID = Int64.random(in: 1...12, using: &generator) * commitSpacing
        let environmentID = Int64.random(in: 1...2, using: &generator)
        var states: [KeyIDs: KeyTally] = [:]
        for _ in 0..<Int.random(in: 1...maxKeys, using: &generator) {
            let key = KeyIDs(scenarioID: .random(in: 1...scenarios, using: &generator), typeID: .random(in: 1...types, using: &generator))
            let passed = Bool.random(using: &generator)
            states[key] = KeyTally(
                checked: .random(in: 1...3, using: &generator), leaked: .random(in: 0...1, using: &generator),
                lateRelease: .random(in: 0...1, using: &generator), errors: .random(in: 0...1, using: &generator),
                passedSiteID: passed ? .random(in: 1...3, using: &generator) : nil,
                slowestPassUs: passed ? .random(in: 0...50, using: &generator) : nil)
        }
        let sorted = states.sorted { ($0.key.scenarioID, $0.key.typeID) < ($1.key.scenarioID, $1.key.typeID) }
        try rows.storeStates(sorted[...], commitID: commitID, environmentID: environmentID, writer: writer)
        try StateBlobs.append(CompactCheckWriter.live.storedStates(sorted[...], writer: writer),
                              commitID: commitID, environmentID: environmentID, db: writer.connection)
    }
}
