import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// PostgreSQL's packed key states (`StateArrays`) give the states a row-a-state table holds for
/// the same runs, by commit (the view `leak_states`) and by key (`StateArrays.keyStates`),
/// whatever has been settled.
@Suite("PostgreSQL packed key states")
struct StateArraysTests {
    /// Runs stored both ways — the upsert into a row-a-state table (`leak_states_rows`) and the
    /// arrays — settled every `settleEvery` runs (0: never), a few states a batch so that a key's
    /// states come from several blocks, the rows not settled yet and re-runs in other batches;
    /// keys from several groups of `StateArrays.keyGroup`. The 12 commits' ids are `spacing`
    /// apart: 100,000 makes a batch of more than three commits a block wider than
    /// `StateBlobs.narrowSpan`, found for a range that ends before it only on its own index.
    @Test(arguments: TestEngine.postgresOnly, [(0, 1), (1, 1), (4, 1), (4, 100_000), (8, 100_000)] as [(Int, Int64)])
    func theViewAndTheKeyReadsAnswerAsTheRowsDo(_ engine: TestEngine, batching: (settleEvery: Int, spacing: Int64)) throws {
        let (settleEvery, spacing) = batching
        let database = try TestDatabase(engine)
        _ = try database.open().createProject("app")
        let db = try PostgresConnection(url: database.location)
        try db.execute("""
            CREATE TABLE leak_states_rows (
                commit_id BIGINT NOT NULL, environment_id BIGINT NOT NULL, key_id BIGINT NOT NULL,
                checked_count INTEGER NOT NULL, leaked_count INTEGER NOT NULL, late_release_count INTEGER NOT NULL,
                error_count INTEGER NOT NULL, passed_site_id BIGINT, slowest_pass_us BIGINT,
                PRIMARY KEY (commit_id, environment_id, key_id))
            """)
        for index in (1...12 as ClosedRange<Int64>).map({ $0 * spacing }) {
            try db.run("INSERT INTO commits (id, project_id, sha, branch, first_seen) VALUES (?, 1, ?, 'main', '2026-12-03T00:00:00Z')",
                       [.integer(Int64(index)), .text(String(format: "%040x", index))])
        }
        try db.run("INSERT INTO environments (name) VALUES ('linux'), ('macos')")
        try db.run("INSERT INTO scenarios (id, name) SELECT n, 's' || n FROM generate_series(1, 5) AS n")
        try db.run("INSERT INTO types (id, name) SELECT n, 't' || n FROM generate_series(1, 6) AS n")
        try db.run("INSERT INTO check_sites (id, file, line, lifecycle) VALUES (1, 'a', 1, 'x'), (2, 'b', 2, 'x'), (3, 'c', 3, 'x')")
        let writer = WriteSession(db)
        let rows = CompactCheckWriter(states: "leak_states_rows", checks: "checks", keys: .keyID)
        var generator = SplitMix64(seed: UInt64(settleEvery) + 29)
        try db.execute("BEGIN")
        for run in 0..<80 {
            try RandomKeyStates.storeRun(rows: rows, writer: writer, scenarios: 5, types: 6, maxKeys: 14, commitSpacing: spacing,
                                         using: &generator)
            if settleEvery > 0, run < 70, run % settleEvery == settleEvery - 1 { try StateBlobs.settle(maxStates: 25, db: db) }
        }
        try db.execute("COMMIT")
        let keyIDs = try answer(db, "SELECT id FROM leak_keys ORDER BY id", [], columns: 1).map { Int64($0[0])! }
        #expect(keyIDs.count > 2 * StateArrays.keyGroup)
        if settleEvery > 0 {
            #expect(try db.scalarInt("SELECT count(*) FROM key_state_blocks") ?? 0 > 20)
            let wide = try db.scalarInt("SELECT count(*) FROM key_state_blocks WHERE last_commit_id - first_commit_id > ?",
                                        [.integer(Int64(StateBlobs.narrowSpan))]) ?? 0
            #expect(spacing == 1 ? wide == 0 : wide > 2, "blocks wider than StateBlobs.narrowSpan")
        }
        #expect(try db.scalarInt("SELECT count(*) FROM state_arrays WHERE NOT settled") ?? 0 > 0)

        let all = "commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count, passed_site_id, slowest_pass_us"
        #expect(try answer(db, "SELECT \(all) FROM leak_states ORDER BY 1, 2, 3", [])
                == answer(db, "SELECT \(all) FROM leak_states_rows ORDER BY 1, 2, 3", []))
        for commitID in (1...12 as ClosedRange<Int64>).map({ $0 * spacing }) {
            let sql = "SELECT \(all) FROM {T} WHERE commit_id = ? AND environment_id = 2 ORDER BY key_id"
            #expect(try answer(db, sql.replacingOccurrences(of: "{T}", with: "leak_states"), [.integer(commitID)])
                    == answer(db, sql.replacingOccurrences(of: "{T}", with: "leak_states_rows"), [.integer(commitID)]))
        }
        // Each key's history in each environment, whole and in a range; several keys at once.
        let counts = "key_id, environment_id, commit_id, checked_count, leaked_count, late_release_count, error_count"
        func byKey(_ keys: String, _ environmentID: Int64, _ low: Int64, _ high: Int64) throws {
            let relation = StateArrays.keyStates("\(raw: keys)", environment: "CAST(\(environmentID) AS BIGINT)",
                                                 from: "CAST(\(low * spacing) AS BIGINT)", through: "CAST(\(high * spacing) AS BIGINT)")
            let read: SQL = "SELECT \(raw: counts) FROM \(relation) ls ORDER BY 1, 3"
            let packed = try answer(db, read.text, read.values, columns: 7)
            let expected = try answer(db, """
                SELECT \(counts) FROM leak_states_rows
                WHERE key_id IN (\(keys)) AND environment_id = ?1 AND commit_id BETWEEN ?2 AND ?3 ORDER BY 1, 3
                """, [.integer(environmentID), .integer(low * spacing), .integer(high * spacing)], columns: 7)
            #expect(packed == expected, "keys \(keys), environment \(environmentID), commits \(low)...\(high)")
        }
        for keyID in keyIDs {
            for environmentID in [1, 2] as [Int64] {
                try byKey("SELECT CAST(\(keyID) AS BIGINT)", environmentID, 1, 12)
                try byKey("SELECT CAST(\(keyID) AS BIGINT)", environmentID, 4, 7)
            }
        }
        try byKey("SELECT id FROM leak_keys WHERE id % 3 = 0", 1, 2, 11)
        try byKey("SELECT id FROM leak_keys", 2, 1, 12)

        // The reads a diff makes through `ProjectHistory` (the keys as one array parameter, their
        // states and run counts added up by the reader) against the rows.
        var keysByID: [Int64: KeyIDs] = [:]
        try db.query("SELECT id, scenario_id, type_id FROM leak_keys", []) {
            keysByID[$0.int64(at: 0)] = KeyIDs(scenarioID: $0.int64(at: 1), typeID: $0.int64(at: 2))
        }
        var stored: [Int64: [KeyIDs: [Int64: KeyTally]]] = [:]
        try db.query("SELECT environment_id, key_id, commit_id, checked_count, leaked_count, late_release_count, error_count FROM leak_states_rows", []) {
            let ids = keysByID[$0.int64(at: 1)]!
            stored[$0.int64(at: 0), default: [:]][ids, default: [:]][$0.int64(at: 2)] = KeyTally(
                checked: $0.int64(at: 3), leaked: $0.int64(at: 4), lateRelease: $0.int64(at: 5), errors: $0.int64(at: 6))
        }
        let history = try ProjectHistory(db, project: "app")
        var picks = SplitMix64(seed: 71)
        for _ in 0..<24 {
            let environmentID = Int64.random(in: 1...2, using: &picks)
            let keys = Set(keysByID.values.filter { _ in Bool.random(using: &picks) })
            let commits = Set((1...12 as ClosedRange<Int64>).filter { _ in Int.random(in: 0..<3, using: &picks) > 0 }.map { $0 * spacing })
            guard let low = commits.min(), let high = commits.max() else { continue }
            let states = stored[environmentID] ?? [:]
            func expectedGrid(_ keys: Set<KeyIDs>) -> [KeyIDs: [KeyState?]] {
                var rows: [KeyIDs: [KeyState?]] = [:]
                for ids in keys {
                    let row = commits.sorted().map { commit in states[ids]?[commit].flatMap { $0.checked > 0 ? $0.state : nil } }
                    if row.contains(where: { $0 != nil }) { rows[ids] = row }
                }
                return rows
            }
            func expectedCounts(_ keys: Set<KeyIDs>) -> [KeyIDs: [[Int32]?]] {
                expectedGrid(keys).keys.reduce(into: [:]) { rows, ids in
                    rows[ids] = commits.sorted().map { commit in
                        states[ids]?[commit].flatMap { $0.checked > 0 ? [Int32($0.checked - $0.errors), Int32($0.leaked)] : nil }
                    }
                }
            }
            let environment = environmentID == 1 ? "linux" : "macos"
            let grid = try history.keyStates(keys, environment: environment, at: commits)
            #expect(grid.rows.mapValues { $0.map { $0?.state } } == expectedGrid(keys), "commits \(low)...\(high) in \(environment)")
            #expect(grid.rows.mapValues { $0.map { $0.map { [$0.runs, $0.leakedRuns] } } } == expectedCounts(keys))
        }
    }

    /// A key's counts read from several stored rows come back one a column, in column order,
    /// those of a commit that several rows held added up.
    @Test func countsOfOneColumnFromSeveralRowsAddUp() {
        func counts(_ column: Int, _ checked: Int64, leaked: Int64 = 0) -> ColumnTally {
            ColumnTally(column: column, tally: KeyTally(checked: checked, leaked: leaked))
        }
        let added = ColumnTally.merged([counts(4, 1), counts(2, 1, leaked: 1), counts(4, 2, leaked: 1), counts(0, 3), counts(2, 1)])
        #expect(added.map(\.column) == [0, 2, 4])
        #expect(added.map(\.tally.checked) == [3, 2, 3])
        #expect(added.map(\.tally.leaked) == [0, 1, 1])
        #expect(ColumnTally.merged([counts(1, 1), counts(3, 1)]).map(\.column) == [1, 3])
        #expect(ColumnTally.merged([]).isEmpty)
    }

    /// Uploads on PostgreSQL leave settling to the background rounds
    /// (`StateBlobs.settlesInBackground`), which settle once a batch's worth waits; and a big
    /// run's states, keys of their own, settle a few thousand a statement (`StateArrays.settle`'s
    /// bound on keys): 32,000 of them at once were 250–410 ms in whichever upload found settling
    /// due, and the uploads beside a 100,000-check one waited that long.
    @Test(arguments: TestEngine.postgresOnly)
    func aBigRunSettlesInTheBackgroundARowAStatement(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        let checks = 2 * StoreTuning.blobStates + 100
        func upload(_ name: String) throws {
            _ = try store.ingest(LeakStoreTests.run(key: name, outcomes: Array(repeating: .deallocated, count: checks),
                                                    names: (name, "App.\(name)")))
        }
        func scalar(_ sql: String) throws -> Int64 { try store.read { try $0.scalarInt(sql) } ?? -1 }
        try upload("Big")
        // Less than a batch's worth waits: neither the upload nor a round settled any of it.
        #expect(try scalar("SELECT count(*) FROM key_state_blocks") == 0)
        // Stored in slices (rows of a few hundred states): a few thousand keys a statement.
        var settled: [(blobs: Int, states: Int, full: Bool)] = []
        repeat {
            settled.append(try store.write { try StateBlobs.settle(db: $0.connection) })
        } while settled.last!.full && settled.count < 10
        #expect(settled.count == 2, "\(settled)")
        #expect(settled.allSatisfy { $0.states >= StoreTuning.settleKeys / 2 && $0.states <= StoreTuning.settleKeys + StoreTuning.blobStates },
                "\(settled)")
        #expect(settled.map(\.states).reduce(0, +) == checks)
        #expect(try scalar("SELECT count(DISTINCT key_group) FROM key_state_blocks") == Int64((checks + StateArrays.keyGroup - 1) / StateArrays.keyGroup))

        // More than a batch's worth: the rounds the uploads start settle it, in the background.
        let runs = StoreTuning.settleStates / checks + 1
        for index in 0..<runs { try upload("More\(index)") }
        let deadline = ContinuousClock.now + .seconds(60)
        while try store.read({ try PostgresStatistics.waitingStates($0 as! PostgresConnection) }) >= StoreTuning.settleStates,
              ContinuousClock.now < deadline {
            usleep(100_000)
        }
        #expect(try store.read { try PostgresStatistics.waitingStates($0 as! PostgresConnection) } < StoreTuning.settleStates)
        #expect(try scalar("SELECT count(*) FROM state_arrays WHERE settled") > 3)
        #expect(try scalar("SELECT sum(checked_count) FROM leak_states") == Int64((runs + 1) * checks))
    }

    /// Key reads take their arrays back from PostgreSQL's text form, which this reads as
    /// PostgreSQL prints it.
    @Test(arguments: TestEngine.postgresOnly)
    func anIntegerArrayReadsBackAsPostgreSQLPrintsIt(_ engine: TestEngine) throws {
        #expect(PostgresArray.integers("{}") == [])
        #expect(PostgresArray.integers("{7}") == [7])
        #expect(PostgresArray.integers("{NULL,4}") == [4])
        let database = try TestDatabase(engine)
        _ = try database.open()
        let db = try PostgresConnection(url: database.location)
        let values: [Int64] = [0, 1, -2, 30, 9_223_372_036_854_775_807, -9_223_372_036_854_775_807, 42]
        let printed = try db.scalarText("SELECT CAST(CAST(?1 AS BIGINT[]) AS TEXT)", [.text("{" + values.map(String.init).joined(separator: ",") + "}")])
        #expect(PostgresArray.integers(printed ?? "") == values)
        let slice = try db.scalarText("SELECT CAST((CAST(?1 AS INTEGER[]))[2:3] AS TEXT)", [.text("{5,6,7,8}")])
        #expect(PostgresArray.integers(slice ?? "") == [6, 7])
    }

    /// The rows as text, each of its first `columns` columns (their count: 9, as `leak_states` has).
    private func answer(_ db: any SQLConnection, _ sql: String, _ values: [SQLValue], columns: Int32 = 9) throws -> [[String]] {
        var rows: [[String]] = []
        try db.query(sql, values) { row in
            rows.append((0..<columns).map { row.isNull(at: $0) ? "NULL" : row.string(at: $0) ?? "" })
        }
        return rows
    }
}
