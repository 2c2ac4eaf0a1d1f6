import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// The write session's caches of interned ids stay bounded: past `cacheLimit` a cache is emptied
/// before the next lookup, and the ids looked up again are the database's.
@Suite("Write session caches")
struct WriteSessionCacheTests {
    @Test func aCachePastItsLimitIsEmptiedAndTheIdsStayTheDatabases() throws {
        let database = try TestDatabase(.sqlite)
        _ = try database.open()
        let connection = try SQLiteConnection(path: database.location, mode: .readWrite)
        let session = WriteSession(connection)
        session.cacheLimit = 4

        let first = (0..<6).map { "Suite/first\($0)()" }
        try session.intern(scenarios: first, types: ["App.A"])
        #expect(session.scenarioIDs.count == 6, "a run's own names stay while it is stored")
        let firstIDs = session.scenarioIDs

        // The next run: the cache is past its limit, so it starts over with this run's names.
        let second = ["Suite/first2()", "Suite/second()"]
        try session.intern(scenarios: second, types: ["App.A"])
        #expect(Set(session.scenarioIDs.keys) == Set(second))
        #expect(session.scenarioIDs["Suite/first2()"] == firstIDs["Suite/first2()"])
        for name in second {
            #expect(session.scenarioIDs[name] == (try connection.scalarInt("SELECT id FROM scenarios WHERE name = ?", [.text(name)])))
        }
        // Under the limit nothing is dropped.
        try session.intern(scenarios: ["Suite/third()"], types: [])
        #expect(session.scenarioIDs.count == 3)
    }
}
