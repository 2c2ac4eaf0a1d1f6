import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// A database written in the layout before compact storage is upgraded in place when this
/// build opens it: batch by batch, with progress, resuming where an interrupted upgrade
/// stopped, and answering every query as the old layout did.
@Suite("Upgrade in place")
struct UpgradeInPlaceTests {
    /// The old layout filled with `AnswerHistory`'s uploads.
    static func legacyDatabase(_ engine: TestEngine) throws -> (TestDatabase, AnswerHistory) {
        let database = try TestDatabase(engine)
        let history = AnswerHistory()
        let writer = engine == .sqlite
            ? try LegacyLayoutWriter.sqlite(path: database.location, project: AnswerHistory.project)
            : try LegacyLayoutWriter(try PostgresConnection(url: database.location), postgres: true, project: AnswerHistory.project)
        try writer.write(history.runs)
        return (database, history)
    }

    struct Interrupted: Error {}

    @Test(arguments: TestEngine.all)
    func anInterruptedUpgradeResumesAndAnswersAsTheOldLayoutDid(_ engine: TestEngine) throws {
        let (database, history) = try Self.legacyDatabase(engine)
        let options = StoreOptions(upgradeBatchChecks: 100)
        let steps = Collected<UpgradeProgress>()
        // Stopped after the third batch, as a kill between two commits would stop it.
        #expect(throws: Interrupted.self) {
            _ = try database.open(options) { step in
                steps.append(step)
                if steps.values.count == 3 { throw Interrupted() }
            }
        }
        let stopped = try #require(steps.values.last)
        #expect(!stopped.finished && stopped.runsDone > 0 && stopped.runsDone < history.runs.count)
        #expect(stopped.runsTotal == history.runs.count)

        let resumed = Collected<UpgradeProgress>()
        let store = try database.open(options) { resumed.append($0) }
        let first = try #require(resumed.values.first)
        #expect(first.runsDone > stopped.runsDone, "the batches done before the interruption are not copied again")
        #expect(resumed.values.last?.finished == true && resumed.values.last?.runsDone == history.runs.count)
        #expect(resumed.values.dropLast().allSatisfy { $0.description.hasPrefix("upgrading to ") })
        // Every old check is either a full record now or a row-less pass counted in leak_states.
        let (records, counted) = try store.read { db in
            (try db.scalarInt("SELECT count(*) FROM checks") ?? -1,
             try db.scalarInt("SELECT coalesce(sum(checked_count), 0) FROM leak_states") ?? -1)
        }
        let all = history.runs.reduce(0) { $0 + $1.checks.count }
        let suspect = history.runs.filter { RunTally($0.checks).suspect }.reduce(0) { $0 + $1.checks.count }
        #expect(counted == Int64(all - suspect))
        #expect(records < Int64(all) / 4)

        let difference = try CompactStorageTests.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")

        // Opening it again finds nothing left to do.
        let again = Collected<UpgradeProgress>()
        _ = try database.open(options) { again.append($0) }
        #expect(again.values.isEmpty)
    }

    @Test(arguments: TestEngine.all)
    func aNewDatabaseGoesStraightToTheCompactLayout(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let steps = Collected<UpgradeProgress>()
        let store = try database.open { steps.append($0) }
        #expect(steps.values.map(\.finished) == [true] && steps.values.first?.runsTotal == 0)
        #expect(try store.read { try $0.scalarInt("SELECT finished FROM compaction_progress") } == 1)
    }
}
