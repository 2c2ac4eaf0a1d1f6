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

    /// PostgreSQL 9 (`0009_pg_commit_order.sql`) on a database with commits, one of them rebuilt
    /// right after its own id: the next new commits come after the largest id, `spacing` apart,
    /// from the identity sequence.
    @Test(arguments: TestEngine.postgresOnly)
    func newCommitsAfterTheCommitOrderUpgradeComeAfterTheLargestIDWithRoom(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let connection = try PostgresConnection(url: database.location)
        try Self.migrate(connection, Migration.postgres.filter { $0.version < 9 })
        try connection.execute("INSERT INTO projects (id, name, created_at) VALUES (1, 'app', '2026-01-01T00:00:00.000Z')")
        for (id, sha) in [(1_024, "a"), (2_048, "b"), (2_049, "c")] {
            try connection.run("INSERT INTO commits (id, project_id, sha, branch, first_seen) VALUES (?, 1, ?, 'main', '2026-01-01T00:00:00.000Z')",
                               [.integer(Int64(id)), .text(String(repeating: sha, count: 40))])
        }
        let store = try database.open()
        for (index, commit) in ["d", "e"].enumerated() {
            var run = LeakStoreTests.run(key: "after-\(index)")
            run.commit = String(repeating: commit, count: 40)
            _ = try store.ingest(run)
        }
        let ids = try store.read { db in
            var ids: [Int64] = []
            try db.query("SELECT id FROM commits ORDER BY id") { ids.append($0.int64(at: 0)) }
            return ids
        }
        #expect(ids == [1_024, 2_048, 2_049, 3_072, 4_096])
    }

    @Test(arguments: TestEngine.all)
    func anInterruptedUpgradeResumesAndAnswersAsTheOldLayoutDid(_ engine: TestEngine) throws {
        let (database, history) = try Self.legacyDatabase(engine)
        let options = StoreOptions(upgradeBatchChecks: 100)
        let compact = engine == .sqlite ? "compact_storage" : "pg_compact_storage"
        let steps = Collected<UpgradeProgress>()
        // Stopped after the third batch, as a kill between two commits would stop it.
        #expect(throws: Interrupted.self) {
            _ = try database.open(options) { step in
                steps.append(step)
                if steps.values.count == 3 { throw Interrupted() }
            }
        }
        let stopped = try #require(steps.values.last)
        #expect(stopped.migration == compact && stopped.unit == "runs")
        #expect(!stopped.finished && stopped.done > 0 && stopped.done < history.runs.count)
        #expect(stopped.total == history.runs.count)

        let resumed = Collected<UpgradeProgress>()
        let store = try database.open(options) { resumed.append($0) }
        let first = try #require(resumed.values.first)
        #expect(first.done > stopped.done, "the batches done before the interruption are not copied again")
        let compacted = try #require(resumed.values.last { $0.migration == compact })
        #expect(compacted.finished && compacted.done == history.runs.count)
        #expect(resumed.values.filter { !$0.finished }.allSatisfy { $0.description.hasPrefix("upgrading to ") })
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

    /// The old layout filled with `AnswerHistory`'s uploads and migrated up to the one before
    /// migration 8 (PostgreSQL 4), as a build of that time left it; the connection stays open.
    static func beforeKeys(_ engine: TestEngine) throws -> (TestDatabase, AnswerHistory, any SQLConnection) {
        let (database, history) = try legacyDatabase(engine)
        let connection: any SQLConnection = engine == .sqlite
            ? try SQLiteConnection(path: database.location, mode: .readWrite)
            : try PostgresConnection(url: database.location)
        try migrate(connection, keysMigrations(engine).filter { $0.version < keysVersion(engine) })
        return (database, history, connection)
    }

    static func keysMigrations(_ engine: TestEngine) -> [Migration] { engine == .sqlite ? Migration.all : Migration.postgres }
    static func keysVersion(_ engine: TestEngine) -> Int { engine == .sqlite ? 8 : 4 }
    static func keysMigrationName(_ engine: TestEngine) -> String { engine == .sqlite ? "leak_keys" : "pg_leak_keys" }

    /// Every row of `leak_states`, in key order, as text.
    static func everyState(_ connection: any SQLConnection) throws -> [String] {
        var lines: [String] = []
        try connection.query("SELECT * FROM leak_states ORDER BY commit_id, environment_id, key_id") { row in
            lines.append((0..<9).map { row.isNull(at: $0) ? "NULL" : String(row.int64(at: $0)) }.joined(separator: " "))
        }
        return lines
    }

    /// Opens `database`, which upgrades it, and stops the upgrade after its second progress step
    /// (as a kill between two commits would); returns that step.
    static func openStoppedAfterTwoSteps(_ database: TestDatabase, _ options: StoreOptions) throws -> UpgradeProgress {
        let steps = Collected<UpgradeProgress>()
        #expect(throws: Interrupted.self) {
            _ = try database.open(options) { step in
                steps.append(step)
                if steps.values.count == 2 { throw Interrupted() }
            }
        }
        return try #require(steps.values.last)
    }

    static func migrate(_ connection: any SQLConnection, _ migrations: [Migration],
                        batchRows: Int = StoreTuning.conversionBatchRows, progress: UpgradeProgress.Observer? = nil) throws {
        try Migrator(migrations: migrations, location: "test", progress: progress, batchRows: batchRows).migrate(connection) { body in
            try connection.execute("BEGIN")
            let applied = try body()
            try connection.execute("COMMIT")
            return applied
        }
    }

    /// What the earlier, set-based text of migration 8 (PostgreSQL 4) left on the same uploads:
    /// its file as it shipped (`Golden/`), applied as the one transaction it was.
    static func setBasedKeys(_ engine: TestEngine) throws -> [String] {
        let (database, _, connection) = try beforeKeys(engine)
        defer { withExtendedLifetime(database) {} }
        let file = engine == .sqlite ? "0008_leak_keys_set_based.sql" : "0004_pg_leak_keys_set_based.sql"
        let text = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden").appendingPathComponent(file))
        let current = try #require(keysMigrations(engine).first { $0.version == keysVersion(engine) })
        // The later migrations as they are, so that both ends are the whole schema.
        try migrate(connection, keysMigrations(engine).filter { $0.version < keysVersion(engine) }
            + [Migration(version: current.version, name: current.name, bytes: Array(text))]
            + keysMigrations(engine).filter { $0.version > keysVersion(engine) })
        return try DatabaseContents.lines(connection, engine: engine)
    }

    /// Migration 8 (PostgreSQL 4) on a database a build of migration 7 (3) filled: keys interned
    /// as `leak_keys`, every key state carried over, every answer as before, and the database as
    /// the set-based text of the migration left it.
    @Test(arguments: TestEngine.all)
    func internedKeysOnAPopulatedDatabaseAnswerAsBefore(_ engine: TestEngine) throws {
        let (database, history, connection) = try Self.beforeKeys(engine)
        let migrations = Self.keysMigrations(engine)
        let states = try connection.scalarInt("SELECT count(*) FROM leak_states") ?? 0
        let keys = try connection.scalarInt("SELECT count(*) FROM (SELECT DISTINCT scenario_id, type_id FROM leak_states) AS k") ?? 0
        let counted = try connection.scalarInt("SELECT sum(checked_count) FROM leak_states") ?? 0
        #expect(states > 100 && keys > 10)

        let steps = Collected<UpgradeProgress>()
        let store = try database.open { steps.append($0) }
        #expect(try store.schemaVersion() == migrations.last?.version)
        let keySteps = steps.values.filter { $0.migration == Self.keysMigrationName(engine) }
        #expect(keySteps.map(\.finished) == [false, true], "one batch of the default size, then the swap")
        #expect(keySteps.first?.rowsCopied == states)
        let after = try store.read { db in
            [try db.scalarInt("SELECT count(*) FROM leak_states") ?? -1, try db.scalarInt("SELECT count(*) FROM leak_keys") ?? -1,
             try db.scalarInt("SELECT sum(checked_count) FROM leak_states") ?? -1]
        }
        #expect(after == [states, keys, counted])
        let difference = try CompactStorageTests.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")
        let left = DatabaseContents.firstDifference(try DatabaseContents.lines(connection, engine: engine),
                                                        try Self.setBasedKeys(engine))
        #expect(left == nil, "\(left ?? "")")

        // New uploads intern their new keys after the carried-over ones (SQLite: the legacy writer gave
        // PostgreSQL's commits explicit ids, which its identity sequence does not know of).
        guard engine == .sqlite else { return }
        #expect(try store.ingest(LeakStoreTests.run(key: "after-keys")).created)
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM leak_keys") ?? -1 } == keys + 2)
        let leaked = try store.scenarioHistory(project: "app", scenario: "S/0()", branch: nil, environment: "linux", limit: 10,
                                               before: nil)
        #expect(leaked.commits.map { $0.keys.map(\.state) } == [[.leaked]])
    }

    /// Migration 8 stopped part way (after two batches of 100 key states, as a kill between two
    /// commits would stop it) resumes after the last batch committed, copies no state twice, and
    /// ends as the set-based text of the migration did.
    @Test(arguments: TestEngine.all)
    func anInterruptedKeyInterningResumesAndEndsAsTheSetBasedTextDid(_ engine: TestEngine) throws {
        let (database, history, connection) = try Self.beforeKeys(engine)
        let states = try connection.scalarInt("SELECT count(*) FROM leak_states") ?? 0
        let commits = Int(try connection.scalarInt("SELECT count(*) FROM commits") ?? 0)
        let options = StoreOptions(upgradeBatchChecks: 100)
        let stopped = try Self.openStoppedAfterTwoSteps(database, options)
        #expect(stopped.migration == Self.keysMigrationName(engine) && stopped.unit == "commits")
        #expect(!stopped.finished && stopped.done > 0 && stopped.done < commits && stopped.total == commits)
        #expect(stopped.rowsCopied >= 200 && stopped.rowsCopied < states)
        #expect(stopped.description == "upgrading to \(stopped.migration): \(stopped.done) of \(commits) commits "
            + "(\(stopped.done * 100 / commits)%)")
        // The committed batches are in the keyed table, the marker after their last commit.
        #expect(try connection.scalarInt("SELECT count(*) FROM leak_states_keyed") == stopped.rowsCopied)
        #expect(try connection.scalarInt("SELECT finished FROM leak_keys_progress") == 0)

        let resumed = Collected<UpgradeProgress>()
        let store = try database.open(options) { resumed.append($0) }
        let keySteps = resumed.values.filter { $0.migration == stopped.migration }
        let first = try #require(keySteps.first)
        #expect(first.done > stopped.done, "the batches done before the interruption are not copied again")
        let last = try #require(keySteps.last)
        #expect(last.finished && last.done == commits && last.description.hasPrefix("upgraded to "))
        #expect(stopped.rowsCopied + last.rowsCopied == states, "every state copied once")
        #expect(keySteps.dropLast().allSatisfy { !$0.finished })

        let difference = try CompactStorageTests.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")
        let left = DatabaseContents.firstDifference(try DatabaseContents.lines(connection, engine: engine),
                                                        try Self.setBasedKeys(engine))
        #expect(left == nil, "\(left ?? "")")

        let again = Collected<UpgradeProgress>()
        _ = try database.open(options) { again.append($0) }
        #expect(again.values.isEmpty)
    }

    @Test(arguments: TestEngine.all)
    func aNewDatabaseGoesStraightToTheCompactLayout(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let steps = Collected<UpgradeProgress>()
        let store = try database.open { steps.append($0) }
        // Each converting migration finds nothing to copy and says so once.
        #expect(steps.values.map(\.description) == (engine == .sqlite
            ? ["upgraded to compact_storage: 0 runs", "upgraded to leak_keys: 0 commits", "upgraded to leak_states_key_order: 0 key states",
               "upgraded to packed_key_states: 0 commits"]
            : ["upgraded to pg_compact_storage: 0 runs", "upgraded to pg_leak_keys: 0 commits",
               "upgraded to pg_packed_key_states: 0 commits"]))
        #expect(try store.read { try $0.scalarInt("SELECT finished FROM compaction_progress") } == 1)
        #expect(try store.read { try $0.tableExists("leak_keys_progress") } == false)
        #expect(try store.read { try $0.tableExists("key_order_progress") } == false)
    }

    /// Migration 11 (SQLite only) on a database a build of migration 10 filled, stopped after two
    /// batches (as a kill between two commits would stop it): it resumes after the last batch
    /// committed, copies no state twice, keeps every state as it was, and answers as before —
    /// with the states now in key order, and indexed by commit.
    @Test func keyOrderedStatesResumeAndKeepEveryStateAndAnswer() throws {
        let (database, history, connection) = try Self.beforeKeys(.sqlite)
        try Self.migrate(connection, Migration.all.filter { $0.version < 11 })
        func rows() throws -> [String] { try Self.everyState(connection) }
        let before = try rows()
        let keys = Int(try connection.scalarInt("SELECT count(*) FROM leak_keys") ?? 0)
        #expect(before.count > 100 && keys > 10)

        let options = StoreOptions(upgradeBatchChecks: 100)
        let stopped = try Self.openStoppedAfterTwoSteps(database, options)
        // Counted in states: a 100,000-check run's keys have one each, a key of every run thousands.
        #expect(stopped.migration == "leak_states_key_order" && stopped.unit == "key states")
        #expect(!stopped.finished && stopped.done == stopped.rowsCopied && stopped.total == before.count)
        #expect(stopped.rowsCopied >= 200 && stopped.rowsCopied < before.count)
        #expect(stopped.description == "upgrading to leak_states_key_order: \(stopped.done) of \(before.count) key states "
            + "(\(stopped.done * 100 / before.count)%)")
        #expect(try connection.scalarInt("SELECT count(*) FROM leak_states_key_order") == stopped.rowsCopied)

        // Resumed up to migration 13: the key-ordered table, indexed by commit.
        let resumed = Collected<UpgradeProgress>()
        try Self.migrate(connection, Migration.all.filter { $0.version < 14 }, batchRows: 100) { resumed.append($0) }
        let first = try #require(resumed.values.first)
        #expect(first.migration == stopped.migration && first.done > stopped.done,
                "the batches done before the interruption are not copied again")
        let last = try #require(resumed.values.last)
        #expect(last.finished && last.done == before.count && stopped.rowsCopied + last.rowsCopied == Int64(before.count))
        #expect(try rows() == before, "every state as it was")
        let schema = try connection.scalarText("SELECT sql FROM sqlite_master WHERE name = 'leak_states'") ?? ""
        #expect(schema.contains("PRIMARY KEY (key_id, environment_id, commit_id)"))
        let indexes = try Set(["leak_states_by_commit", "leak_states_telling", "leak_states_by_key"].filter {
            try connection.scalarInt("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", [.text($0)]) != nil
        })
        #expect(indexes == ["leak_states_by_commit", "leak_states_telling"])
        #expect(try connection.tableExists("key_order_progress") == false)
        let store = try database.open(options)
        #expect(try rows() == before, "every state as it was, packed (migration 14)")
        let difference = try CompactStorageTests.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")

        let again = Collected<UpgradeProgress>()
        _ = try database.open(options) { again.append($0) }
        #expect(again.values.isEmpty)
    }

    /// Migration 14 (PostgreSQL 12) on a database a build of migration 13 (11) filled, stopped
    /// after two batches: it resumes after the last batch committed, packs every state once, and
    /// `leak_states` then gives every state as it was and the store answers as before.
    @Test(arguments: TestEngine.all)
    func packedStatesResumeAndKeepEveryStateAndAnswer(_ engine: TestEngine) throws {
        let (database, history, connection) = try Self.beforeKeys(engine)
        let packing = engine == .sqlite ? (version: 14, name: "packed_key_states", table: "state_blobs")
            : (version: 12, name: "pg_packed_key_states", table: "state_arrays")
        try Self.migrate(connection, Self.keysMigrations(engine).filter { $0.version < packing.version })
        func rows() throws -> [String] { try Self.everyState(connection) }
        let before = try rows()
        let commits = Int(try connection.scalarInt("SELECT count(*) FROM commits") ?? 0)
        #expect(before.count > 100 && commits > 10)

        let options = StoreOptions(upgradeBatchChecks: 60)
        let stopped = try Self.openStoppedAfterTwoSteps(database, options)
        #expect(stopped.migration == packing.name && stopped.unit == "commits")
        #expect(!stopped.finished && stopped.done > 0 && stopped.done < commits && stopped.total == commits)
        #expect(stopped.rowsCopied >= 120 && stopped.rowsCopied < before.count)
        #expect(stopped.description == "upgrading to \(packing.name): \(stopped.done) of \(commits) commits "
            + "(\(stopped.done * 100 / commits)%)")
        // The committed batches are packed and settled, the old table still whole beside them.
        #expect(try connection.scalarInt("SELECT count(*) FROM \(packing.table) WHERE CAST(settled AS INTEGER) = 0") == 0)
        #expect(try connection.scalarInt("SELECT count(*) FROM key_state_blocks") ?? 0 > 0)
        #expect(try rows() == before)

        let resumed = Collected<UpgradeProgress>()
        let store = try database.open(options) { resumed.append($0) }
        let first = try #require(resumed.values.first)
        #expect(first.migration == stopped.migration && first.done > stopped.done,
                "the batches done before the interruption are not packed again")
        let last = try #require(resumed.values.last)
        #expect(last.finished && last.done == commits && stopped.rowsCopied + last.rowsCopied == Int64(before.count))
        #expect(try connection.tableExists("leak_states") == false && connection.tableExists("packing_progress") == false)
        #expect(try rows() == before, "every state as it was, read from the packed tables")
        let difference = try CompactStorageTests.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")
    }
}
