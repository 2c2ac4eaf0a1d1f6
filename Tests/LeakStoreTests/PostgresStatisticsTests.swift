import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// The planner statistics of a PostgreSQL store follow its uploads (`PostgresStatistics`).
@Suite("PostgreSQL statistics")
struct PostgresStatisticsTests {
    /// Uploads that changed a table by more than a fifth since its last ANALYZE have the store
    /// analyze it in the background; a table they hardly changed is left alone.
    @Test(arguments: TestEngine.postgresOnly)
    func tablesUploadsGrewAreAnalyzedAndTheOthersLeftAlone(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        let statistics = try #require(store.engine as? PostgresEngine).statistics
        let checks = StoreTuning.upkeepEveryChecks
        try turnAutovacuumOff(store)
        func upload(_ key: String) throws {
            _ = try store.ingest(LeakStoreTests.run(key: key, outcomes: Array(repeating: .deallocated, count: checks),
                                                    names: (key, "App.Model")))
        }
        func manuallyAnalyzed() throws -> Set<String> {
            try store.read { db in
                var names: Set<String> = []
                try db.query("""
                    SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema() AND last_analyze IS NOT NULL
                    """) { names.insert($0.string(at: 0) ?? "") }
                return names
            }
        }
        try upload("first")
        try waitUntil("the round the first upload started") { statistics.rounds.load(ordering: .relaxed) == 1 }
        // PostgreSQL publishes a transaction's changes to `pg_stat_user_tables` within seconds;
        // the next interval's round then sees them — unless the first round saw them already and
        // analyzed the tables then (which resets `n_mod_since_analyze`, not `n_tup_ins`).
        try waitUntil("the first upload's keys are counted") {
            try store.read { try $0.scalarInt("""
                SELECT n_tup_ins FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'leak_keys'
                """) } ?? 0 >= Int64(checks)
        }
        try upload("second")
        try waitUntil("the round the second upload started") { statistics.rounds.load(ordering: .relaxed) == 2 }
        let analyzed = try manuallyAnalyzed()
        #expect(analyzed.isSuperset(of: ["leak_keys", "scenarios"]), "analyzed: \(analyzed.sorted())")
        #expect(analyzed.isDisjoint(with: ["projects", "tokens", "commits", "runs"]), "analyzed: \(analyzed.sorted())")
    }

    /// Every state passes through `unsettled_key_states` until its batch settles; once a
    /// settling has left more than `StoreTuning.vacuumDeadRows` dead rows there, a round vacuums the table.
    @Test(arguments: TestEngine.postgresOnly)
    func settledStatesAreVacuumedAway(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        try turnAutovacuumOff(store)
        let checks = StoreTuning.upkeepEveryChecks
        func lastVacuum() throws -> String? {
            try store.read { try $0.scalarText("""
                SELECT last_vacuum::text FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'unsettled_key_states'
                """) }
        }
        // Each run's checks are keys of their own: a state each.
        let runs = (StoreTuning.settleStates + StoreTuning.vacuumDeadRows) / checks + 1
        for index in 0..<runs {
            _ = try store.ingest(LeakStoreTests.run(key: "r\(index)", outcomes: Array(repeating: .deallocated, count: checks),
                                                    names: ("r\(index)", "App.Model")))
        }
        // Settled in the background, by the rounds (`StateBlobs.settlesInBackground`).
        try waitUntil("a batch settled") { try store.read { try $0.scalarInt("SELECT count(*) FROM key_state_blocks") } ?? 0 > 0 }
        try waitUntil("unsettled_key_states vacuumed") {
            if try lastVacuum() != nil { return true }
            // Another run, for another round, once the settled rows are counted as dead.
            _ = try store.ingest(LeakStoreTests.run(key: "more\(UUID())", outcomes: Array(repeating: .deallocated, count: checks)))
            return false
        }
        #expect(try lastVacuum() != nil)
        #expect(try store.read { try $0.scalarInt("SELECT sum(checked_count) FROM leak_states") } ?? 0 >= Int64(runs * checks))
    }

    /// Autovacuum's own ANALYZE or VACUUM of a table the uploads grew would reset the counts
    /// the store's rounds read (a fresh table crosses autovacuum's 50-row threshold at once) and
    /// leave them nothing to do: only the store tends this test's tables.
    private func turnAutovacuumOff(_ store: LeakStore) throws {
        try store.write { writer in
            var tables: [String] = []
            try writer.connection.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()") {
                tables.append($0.string(at: 0) ?? "")
            }
            for table in tables where !table.isEmpty {
                try writer.connection.execute("ALTER TABLE \"\(table)\" SET (autovacuum_enabled = false)")
            }
        }
    }

    private func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("still waiting after 30 s for \(what)")
                return
            }
            usleep(100_000)
        }
    }
}
