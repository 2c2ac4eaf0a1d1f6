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

    /// Migration 8 (PostgreSQL 4) on a database a build of migration 7 (3) filled: keys interned
    /// as `leak_keys`, every key state carried over, every answer as before.
    @Test(arguments: TestEngine.all)
    func internedKeysOnAPopulatedDatabaseAnswerAsBefore(_ engine: TestEngine) throws {
        let (database, history) = try Self.legacyDatabase(engine)
        let (migrations, keysVersion) = engine == .sqlite ? (Migration.all, 8) : (Migration.postgres, 4)
        let connection: any SQLConnection = engine == .sqlite
            ? try SQLiteConnection(path: database.location, mode: .readWrite)
            : try PostgresConnection(url: database.location)
        try Migrator(migrations: migrations.filter { $0.version < keysVersion }, location: "test").migrate(connection) { body in
            try connection.execute("BEGIN")
            let applied = try body()
            try connection.execute("COMMIT")
            return applied
        }
        let states = try connection.scalarInt("SELECT count(*) FROM leak_states") ?? 0
        let keys = try connection.scalarInt("SELECT count(*) FROM (SELECT DISTINCT scenario_id, type_id FROM leak_states) AS k") ?? 0
        let counted = try connection.scalarInt("SELECT sum(checked_count) FROM leak_states") ?? 0
        #expect(states > 100 && keys > 10)

        let store = try database.open()
        #expect(try store.schemaVersion() == migrations.last?.version)
        let after = try store.read { db in
            [try db.scalarInt("SELECT count(*) FROM leak_states") ?? -1, try db.scalarInt("SELECT count(*) FROM leak_keys") ?? -1,
             try db.scalarInt("SELECT sum(checked_count) FROM leak_states") ?? -1]
        }
        #expect(after == [states, keys, counted])
        let difference = try CompactStorageTests.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")

        // New uploads intern their new keys after the carried-over ones (SQLite: the legacy writer gave
        // PostgreSQL's commits explicit ids, which its identity sequence does not know of).
        guard engine == .sqlite else { return }
        #expect(try store.ingest(LeakStoreTests.run(key: "after-keys")).created)
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM leak_keys") ?? -1 } == keys + 2)
        let leaked = try store.scenarioHistory(project: "app", scenario: "S/0()", branch: nil, environment: "linux", limit: 10,
                                               before: nil)
        #expect(leaked.commits.map { $0.keys.map(\.state) } == [[.leaked]])
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
