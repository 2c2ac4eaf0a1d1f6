import CSQLite
import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// Key states packed into blobs and blocks (`PackedKeyStates`, `StateBlobs`) read through the
/// `leak_states` virtual table (`LeakStatesTable`) give the rows that the row-a-state table gives
/// for the same runs, whatever has been settled.
@Suite("Packed key states")
struct PackedKeyStatesTests {
    @Test func aBlobGivesBackWhatWasPacked() throws {
        var random = SystemRandomNumberGenerator()
        var ordinal: Int64 = 0
        let entries: [(ordinal: Int64, state: KeyTally)] = (0..<500).map { index in
            ordinal += index == 0 ? 0 : Int64.random(in: 1...100_000, using: &random)
            let passed = Bool.random(using: &random)
            return (ordinal, KeyTally(checked: .random(in: 0...5_000, using: &random), leaked: .random(in: 0...3, using: &random),
                                          lateRelease: .random(in: 0...3, using: &random), errors: .random(in: 0...3, using: &random),
                                          passedSiteID: passed ? .random(in: 1...1 << 40, using: &random) : nil,
                                          slowestPassUs: passed ? .random(in: 0...Int64.max - 1, using: &random) : nil))
        }
        let decoded = try PackedKeyStates.decode(PackedKeyStates.encode(entries))
        #expect(decoded.map(\.ordinal) == entries.map(\.ordinal))
        #expect(decoded.map(\.state) == entries.map(\.state))
    }

    @Test func aBlobCutShortIsAnErrorSayingWhere() throws {
        let bytes = PackedKeyStates.encode([(Int64(7), KeyTally(checked: 300, passedSiteID: 2, slowestPassUs: 1_000))])
        let error = #expect(throws: LeakStoreError.self) { try PackedKeyStates.decode(Array(bytes.dropLast())) }
        #expect("\(error!)".contains("ends inside an entry"))
    }

    /// Runs stored both ways — the upsert into a row-a-state table (`leak_states_rows`) and the
    /// blobs — settled every `settleEvery` runs (0: never), a few states a batch so that keys get
    /// several blocks and re-runs land in different batches; then each query shape the readers use
    /// answers the same on both, also on another connection after more runs commit.
    @Test(arguments: [0, 1, 4])
    func theTableAnswersAsTheRowsDo(settleEvery: Int) throws {
        let database = try TemporaryDatabase()
        _ = try LeakStore(path: database.path).createProject("app")
        let db = try SQLiteConnection(path: database.path, mode: .readWrite)
        try Self.createRowTable(db)
        for index in 1...12 {
            try db.run("INSERT INTO commits (project_id, sha, branch, first_seen) VALUES (1, ?, 'main', '2026-12-03T00:00:00Z')",
                       [.text(index == 5 ? PendingUpload.newPlaceholder() : String(format: "%040x", index))])
        }
        try db.run("INSERT INTO environments (name) VALUES ('linux'), ('macos')")
        let writer = WriteSession(db)
        let rows = CompactCheckWriter(states: "leak_states_rows", checks: "checks", keys: .keyID)
        var generator = SplitMix64(seed: UInt64(settleEvery) + 11)
        func storeRunsInside(commitID: Int64) throws {
            let states = [(key: KeyIDs(scenarioID: 1, typeID: 1), value: KeyTally(checked: 5, leaked: 1))]
            try rows.storeStates(states[...], commitID: commitID, environmentID: 1, writer: writer)
            try StateBlobs.append(CompactCheckWriter.live.storedStates(states[...], writer: writer),
                                  commitID: commitID, environmentID: 1, db: db)
        }
        func storeRuns(_ count: Int) throws {
            try db.execute("BEGIN")
            for run in 0..<count {
                try RandomKeyStates.storeRun(rows: rows, writer: writer, scenarios: 4, types: 5, maxKeys: 12, using: &generator)
                if settleEvery > 0, run % settleEvery == settleEvery - 1 { try StateBlobs.settle(maxStates: 25, db: db) }
            }
            try db.execute("COMMIT")
        }
        try storeRuns(60)
        // A write rolled back to its savepoint after the writer read the commit it wrote to: the
        // next read inside the same transaction does not see it.
        try db.execute("BEGIN")
        try storeRunsInside(commitID: 3)
        try db.execute("SAVEPOINT grouped_write")
        try storeRunsInside(commitID: 3)
        _ = try answer(db, "SELECT * FROM leak_states WHERE commit_id = 3 AND environment_id = 1", [])
        try db.execute("ROLLBACK TO grouped_write")
        try db.execute("RELEASE grouped_write")
        #expect(try answer(db, "SELECT * FROM leak_states WHERE commit_id = 3 AND environment_id = 1", [])
                == answer(db, "SELECT * FROM leak_states_rows WHERE commit_id = 3 AND environment_id = 1", []))
        try db.execute("COMMIT")
        if settleEvery > 0 {
            #expect(try db.scalarInt("SELECT count(*) FROM key_state_blocks") ?? 0 > 20)
            // The pending commit's blobs wait for it to be published.
            #expect(try db.scalarInt("SELECT count(*) FROM state_blobs WHERE settled = 1 AND commit_id = 5") == 0)
        }
        #expect(try db.scalarInt("SELECT count(*) FROM state_blobs WHERE settled = 0") ?? 0 > 0)
        let reader = try SQLiteConnection(path: database.path, mode: .readOnly)
        try expectSameAnswers(db)
        try expectSameAnswers(reader)
        // More runs on commits already read: the writer's own changes, and another connection's.
        try storeRuns(25)
        try expectSameAnswers(db)
        try expectSameAnswers(reader)
    }

    /// Commits `spacing` ids apart, settled every `settleEvery` runs, a few states a batch: with
    /// 100,000 a batch of more than three commits is a block wider than `StateBlobs.narrowSpan`.
    /// Every key's states over ranges narrower than `LeakStatesTable.widestByLastCommit` (read by the
    /// blocks' last commit, the wide ones on their own index) and wider (the key's blocks in
    /// order) answer as the rows do.
    @Test(arguments: [(1, Int64(1)), (4, 100_000), (8, 100_000)])
    func aKeysStatesOverARangeAnswerAsTheRowsDoWhateverTheBlocksSpan(settleEvery: Int, spacing: Int64) throws {
        let database = try TemporaryDatabase()
        _ = try LeakStore(path: database.path).createProject("app")
        let db = try SQLiteConnection(path: database.path, mode: .readWrite)
        try Self.createRowTable(db)
        for index in 1...12 as ClosedRange<Int64> {
            try db.run("INSERT INTO commits (id, project_id, sha, branch, first_seen) VALUES (?, 1, ?, 'main', '2026-12-03T00:00:00Z')",
                       [.integer(index * spacing), .text(String(format: "%040x", index))])
        }
        try db.run("INSERT INTO environments (name) VALUES ('linux'), ('macos')")
        let writer = WriteSession(db)
        let rows = CompactCheckWriter(states: "leak_states_rows", checks: "checks", keys: .keyID)
        var generator = SplitMix64(seed: UInt64(settleEvery) * 7 + UInt64(spacing))
        try db.execute("BEGIN")
        for run in 0..<80 {
            try RandomKeyStates.storeRun(rows: rows, writer: writer, scenarios: 4, types: 5, maxKeys: 12, commitSpacing: spacing,
                                         using: &generator)
            if run < 70, run % settleEvery == settleEvery - 1 { try StateBlobs.settle(maxStates: 25, db: db) }
        }
        try db.execute("COMMIT")
        try db.execute("CREATE TEMP VIEW published_rows AS SELECT * FROM leak_states_rows")
        let wide = try db.scalarInt("SELECT count(*) FROM key_state_blocks WHERE last_commit_id - first_commit_id > ?",
                                    [.integer(Int64(StateBlobs.narrowSpan))]) ?? 0
        #expect(spacing == 1 ? wide == 0 : wide > 2, "blocks wider than StateBlobs.narrowSpan")
        #expect(try db.scalarInt("SELECT count(*) FROM state_blobs WHERE settled = 0") ?? 0 > 0)
        #expect(Int64(12) * spacing > LeakStatesTable.widestByLastCommit || spacing == 1)
        var keyIDs: [Int64] = []
        try db.query("SELECT id FROM leak_keys ORDER BY id", []) { keyIDs.append($0.int64(at: 0)) }
        let all = "commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count, passed_site_id, slowest_pass_us"
        let reader = try SQLiteConnection(path: database.path, mode: .readOnly)
        for keyID in keyIDs {
            for environmentID in [1, 2] as [Int64] {
                for (low, high) in [(1, 12), (2, 4), (3, 9), (5, 5), (6, 12), (1, 3), (10, 12)] as [(Int64, Int64)] {
                    let sql = "SELECT \(all) FROM T WHERE key_id = ? AND environment_id = ? AND commit_id BETWEEN ? AND ? ORDER BY commit_id"
                    let values: [SQLValue] = [.integer(keyID), .integer(environmentID), .integer(low * spacing), .integer(high * spacing)]
                    #expect(try answer(reader, Self.onTheTable(sql), values) == answer(db, Self.onTheRows(sql), values),
                            "key \(keyID), environment \(environmentID), commits \(low)...\(high)")
                }
                let newest = "SELECT \(all) FROM T WHERE key_id = ? AND environment_id = ? AND commit_id <= ? ORDER BY commit_id DESC LIMIT 2"
                let values: [SQLValue] = [.integer(keyID), .integer(environmentID), .integer(8 * spacing)]
                #expect(try answer(reader, Self.onTheTable(newest), values) == answer(db, Self.onTheRows(newest), values))
            }
        }
    }

    private func expectSameAnswers(_ db: SQLiteConnection) throws {
        let all = "commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count, passed_site_id, slowest_pass_us"
        var questions: [(sql: String, values: [SQLValue])] = [
            ("SELECT \(all) FROM T ORDER BY 1, 2, 3", []),
            ("SELECT \(all) FROM T WHERE commit_id = ? AND environment_id = ? ORDER BY key_id", [.integer(3), .integer(1)]),
            ("SELECT \(all) FROM T WHERE commit_id = ? ORDER BY environment_id, key_id", [.integer(5)]),
            ("SELECT \(all) FROM T WHERE key_id = ? ORDER BY environment_id, commit_id", [.integer(4)]),
            ("SELECT \(all) FROM T WHERE key_id = ? AND environment_id = ? AND commit_id > ? AND commit_id <= ? ORDER BY commit_id",
             [.integer(2), .integer(2), .integer(3), .integer(9)]),
            ("SELECT \(all) FROM T WHERE key_id = ? AND commit_id >= ? AND commit_id < ? ORDER BY 1, 2", [.integer(7), .integer(4), .integer(8)]),
            ("SELECT \(all) FROM T WHERE key_id = ? AND commit_id IN (?, ?, ?) ORDER BY 1, 2", [.integer(1), .integer(2), .integer(5), .integer(11)]),
            ("SELECT \(all) FROM T WHERE commit_id = ? AND (leaked_count > 0 OR late_release_count > 0) ORDER BY 2, 3", [.integer(7)]),
            ("""
             SELECT k.scenario_id, k.type_id, ls.commit_id, ls.checked_count, ls.slowest_pass_us
             FROM leak_keys k JOIN T ls ON ls.key_id = k.id
             WHERE ls.environment_id = ? AND ls.commit_id BETWEEN ? AND ? ORDER BY 1, 2, 3
             """, [.integer(1), .integer(2), .integer(10)]),
            ("""
             SELECT k.id, ls.leaked_count, ls.passed_site_id FROM leak_keys k CROSS JOIN T ls
             WHERE ls.commit_id = ? AND ls.environment_id = ? AND ls.key_id = k.id ORDER BY 1
             """, [.integer(9), .integer(2)]),
            ("SELECT key_id, environment_id, sum(checked_count), max(slowest_pass_us), count(*) FROM T GROUP BY 1, 2 ORDER BY 1, 2", []),
            ("SELECT \(all) FROM T WHERE commit_id = ? AND environment_id = ? AND key_id = ?", [.integer(6), .integer(1), .integer(3)]),
            ("SELECT \(all) FROM T WHERE commit_id = NULL", []),
            ("SELECT \(all) FROM T WHERE key_id = ? AND environment_id = ? AND commit_id < ? ORDER BY commit_id DESC LIMIT 3",
             [.integer(3), .integer(1), .integer(11)]),
            ("SELECT \(all) FROM T WHERE key_id = ? AND environment_id = ? ORDER BY environment_id, commit_id", [.integer(5), .integer(2)]),
        ]
        // The hidden columns, which stand for the partial indexes' conditions on the row table.
        for commitID in 1...12 {
            questions.append(("SELECT \(all) FROM T ls WHERE commit_id = ? AND environment_id = ? AND LEAKING ORDER BY key_id",
                              [.integer(Int64(commitID)), .integer(1)]))
            questions.append(("SELECT \(all) FROM T ls WHERE commit_id = ? AND TELLING ORDER BY environment_id, key_id",
                              [.integer(Int64(commitID))]))
        }
        questions.append(("SELECT \(all) FROM T ls WHERE key_id = ? AND environment_id = ? AND TELLING ORDER BY commit_id DESC",
                          [.integer(3), .integer(1)]))
        // Every key's history both ways round, whole and its newest few: blocks settled from random
        // commits overlap, so a key's states come from several blocks and the blobs at once.
        var keyIDs: [Int64] = []
        try db.query("SELECT id FROM leak_keys ORDER BY id", []) { keyIDs.append($0.int64(at: 0)) }
        #expect(keyIDs.count > 10)
        for keyID in keyIDs {
            for environmentID in [1, 2] as [Int64] {
                for (order, limit) in [("DESC", 1), ("DESC", 4), ("DESC", 1_000), ("", 1_000), ("", 2)] {
                    questions.append(("SELECT \(all) FROM T WHERE key_id = ? AND environment_id = ? ORDER BY commit_id \(order) LIMIT ?",
                                      [.integer(keyID), .integer(environmentID), .integer(Int64(limit))]))
                }
                questions.append(("SELECT \(all) FROM T WHERE key_id = ? AND environment_id = ? AND commit_id <= ? ORDER BY commit_id DESC LIMIT 2",
                                  [.integer(keyID), .integer(environmentID), .integer(8)]))
            }
        }
        // A pending upload's states are not rows of the table (its placeholder commit is on no line).
        try db.execute("""
            CREATE TEMP VIEW IF NOT EXISTS published_rows AS SELECT * FROM leak_states_rows
            WHERE commit_id NOT IN (SELECT id FROM commits WHERE sha LIKE 'pending:%')
            """)
        for (sql, values) in questions {
            #expect(try answer(db, Self.onTheTable(sql), values) == answer(db, Self.onTheRows(sql), values), "\(sql)")
        }
    }

    /// The row-a-state table as migration 11 left it, beside the packed tables migration 14 made.
    private static func createRowTable(_ db: SQLiteConnection) throws {
        try db.execute("""
            CREATE TABLE leak_states_rows (
                commit_id INTEGER NOT NULL, environment_id INTEGER NOT NULL, key_id INTEGER NOT NULL,
                checked_count INTEGER NOT NULL, leaked_count INTEGER NOT NULL, late_release_count INTEGER NOT NULL,
                error_count INTEGER NOT NULL, passed_site_id INTEGER, slowest_pass_us INTEGER,
                PRIMARY KEY (key_id, environment_id, commit_id)
            ) WITHOUT ROWID
            """)
    }

    /// A question of `expectSameAnswers` on the virtual table: `T` is it, `LEAKING` and `TELLING` its hidden columns.
    private static func onTheTable(_ sql: String) -> String {
        sql.replacingOccurrences(of: "FROM T", with: "FROM leak_states").replacingOccurrences(of: "JOIN T", with: "JOIN leak_states")
            .replacingOccurrences(of: "LEAKING", with: "ls.leaking = 1").replacingOccurrences(of: "TELLING", with: "ls.telling = 1")
    }

    /// The same question on the rows: `T` is them, `LEAKING` and `TELLING` the conditions of the partial indexes.
    private static func onTheRows(_ sql: String) -> String {
        sql.replacingOccurrences(of: "FROM T", with: "FROM published_rows").replacingOccurrences(of: "JOIN T", with: "JOIN published_rows")
            .replacingOccurrences(of: "LEAKING", with: "ls.leaked_count > 0")
            .replacingOccurrences(of: "TELLING", with: "(ls.leaked_count > 0 OR ls.late_release_count > 0)")
    }

    /// A commit too big for a connection to keep, read for its telling states: only the keys that
    /// leaked or were late in some run are made rows, each merged from every run's state, so
    /// their counts are the commit's (a key late in one run and passing in the other).
    @Test func aBigCommitIsReadForItsTellingStatesWithEveryRunsCounts() throws {
        let database = try TemporaryDatabase()
        _ = try LeakStore(path: database.path).createProject("app")
        let db = try SQLiteConnection(path: database.path, mode: .readWrite)
        try Self.createRowTable(db)
        for sha in ["a", "b"] {
            try db.run("INSERT INTO commits (project_id, sha, branch, first_seen) VALUES (1, ?, 'main', '2026-12-03T00:00:00Z')",
                       [.text(String(repeating: sha, count: 40))])
        }
        try db.run("INSERT INTO environments (name) VALUES ('linux')")
        let writer = WriteSession(db)
        let rows = CompactCheckWriter(states: "leak_states_rows", checks: "checks", keys: .keyID)
        try db.execute("BEGIN")
        // Two runs of 12,000 keys each at commit 1 (more than the 8,192 rows a connection keeps):
        // the first leaks on every 97th key, the second is late on every 89th. Commit 2 has the
        // first alone.
        for (run, commitID) in [(0, 1), (1, 1), (0, 2)] as [(Int, Int64)] {
            let states = (1...12_000).map { (index: Int) -> (key: KeyIDs, value: KeyTally) in
                let leaked: Int64 = run == 0 && index % 97 == 0 ? 1 : 0, late: Int64 = run == 1 && index % 89 == 0 ? 1 : 0
                return (KeyIDs(scenarioID: Int64(index), typeID: 1),
                        KeyTally(checked: 1, leaked: leaked, lateRelease: late, passedSiteID: 1, slowestPassUs: Int64(index % 50)))
            }
            try rows.storeStates(states[...], commitID: commitID, environmentID: 1, writer: writer)
            try StateBlobs.append(CompactCheckWriter.live.storedStates(states[...], writer: writer), commitID: commitID,
                                  environmentID: 1, db: db)
        }
        try db.execute("COMMIT")
        try db.execute("CREATE TEMP VIEW published_rows AS SELECT * FROM leak_states_rows")
        let all = "commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count, passed_site_id, slowest_pass_us"
        for condition in ["LEAKING", "TELLING"] {
            let sql = "SELECT \(all) FROM T ls WHERE commit_id = ? AND environment_id = 1 AND \(condition) ORDER BY key_id"
            let packed = try answer(db, Self.onTheTable(sql), [.integer(1)])
            #expect(try packed == answer(db, Self.onTheRows(sql), [.integer(1)]), "\(condition)")
            #expect(packed.count == (condition == "LEAKING" ? 12_000 / 97 : 12_000 / 97 + 12_000 / 89 - 12_000 / (97 * 89)))
            // Both runs counted: each key was checked twice.
            #expect(packed.allSatisfy { $0[3] == "2" })
            // One run: its telling states as they are, the same again from what the connection keeps.
            let single = try answer(db, Self.onTheTable(sql), [.integer(2)])
            #expect(try single == answer(db, Self.onTheRows(sql), [.integer(2)]), "\(condition)")
            #expect(single.count == 12_000 / 97)
            #expect(try single == answer(db, Self.onTheTable(sql), [.integer(2)]))
        }
    }

    /// A commit too big for a connection to keep, with a small run in another environment: the
    /// other environment is read alone (its blobs only), and the big part, kept by a reader for
    /// its next statements (a diff's batches of keys), answers as the rows do, also once another
    /// connection has stored another run there, and from readers that keep none (past the few
    /// that may keep one at a time).
    @Test func aBigCommitReadByKeyAnswersAsTheRowsAlsoAfterAnotherRun() throws {
        let database = try TemporaryDatabase()
        _ = try LeakStore(path: database.path).createProject("app")
        let db = try SQLiteConnection(path: database.path, mode: .readWrite)
        try Self.createRowTable(db)
        try db.run("INSERT INTO commits (project_id, sha, branch, first_seen) VALUES (1, ?, 'main', '2026-12-03T00:00:00Z')",
                   [.text(String(repeating: "a", count: 40))])
        try db.run("INSERT INTO environments (name) VALUES ('linux'), ('macos')")
        let writer = WriteSession(db)
        let rows = CompactCheckWriter(states: "leak_states_rows", checks: "checks", keys: .keyID)
        // `run`: 12,000 keys in linux, leaking on every `every`th; or (`keys` 30) a small run in macos.
        func storeRun(environmentID: Int64, keys: Int, every: Int) throws {
            let states = (1...keys).map { (index: Int) -> (key: KeyIDs, value: KeyTally) in
                (KeyIDs(scenarioID: Int64(index), typeID: 1),
                 KeyTally(checked: 1, leaked: index % every == 0 ? 1 : 0, passedSiteID: 1, slowestPassUs: Int64(index % 50)))
            }
            try db.execute("BEGIN")
            try rows.storeStates(states[...], commitID: 1, environmentID: environmentID, writer: writer)
            try StateBlobs.append(CompactCheckWriter.live.storedStates(states[...], writer: writer), commitID: 1,
                                  environmentID: environmentID, db: db)
            try db.execute("COMMIT")
        }
        try storeRun(environmentID: 1, keys: 12_000, every: 97)
        try storeRun(environmentID: 2, keys: 30, every: 7)
        try db.execute("CREATE TEMP VIEW published_rows AS SELECT * FROM leak_states_rows")
        var keyIDs: [Int64] = []
        try db.query("SELECT id FROM leak_keys ORDER BY id", []) { keyIDs.append($0.int64(at: 0)) }
        let all = "commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count, passed_site_id, slowest_pass_us"
        // A diff's read of keys at a commit: a point each, in batches of statements.
        let byKeys = """
            SELECT ls.\(all.replacingOccurrences(of: ", ", with: ", ls.")) FROM leak_keys k CROSS JOIN T ls
            WHERE k.id IN (?, ?, ?, ?) AND ls.commit_id = 1 AND ls.environment_id = ? AND ls.key_id = k.id ORDER BY k.id
            """
        func expectSameAnswers(_ reader: SQLiteConnection) throws {
            for environmentID in [2, 1, 2] as [Int64] {
                for batch in stride(from: 0, to: keyIDs.count, by: 997).map({ keyIDs[$0..<min($0 + 4, keyIDs.count)] }) {
                    let values = batch.padded(to: 4).map(SQLValue.integer) + [.integer(environmentID)]
                    #expect(try answer(reader, Self.onTheTable(byKeys), values) == answer(db, Self.onTheRows(byKeys), values))
                }
                let whole = "SELECT \(all) FROM T WHERE commit_id = 1 AND environment_id = ? ORDER BY key_id"
                let packed = try answer(reader, Self.onTheTable(whole), [.integer(environmentID)])
                #expect(try packed == answer(db, Self.onTheRows(whole), [.integer(environmentID)]))
                #expect(packed.count == (environmentID == 1 ? 12_000 : 30))
            }
        }
        let readers = try (0..<4).map { _ in try SQLiteConnection(path: database.path, mode: .readOnly) }
        for reader in readers { try expectSameAnswers(reader) }
        // Another run at the big commit, from the writer: every reader sees it (each key checked twice).
        try storeRun(environmentID: 1, keys: 12_000, every: 89)
        for reader in readers { try expectSameAnswers(reader) }
        #expect(try answer(readers[0], "SELECT count(*) FROM leak_states WHERE commit_id = 1 AND environment_id = 1 AND checked_count = 2",
                           []) == [["12000"]])
    }

    private func answer(_ db: SQLiteConnection, _ sql: String, _ values: [SQLValue]) throws -> [[String]] {
        var rows: [[String]] = []
        let statement = try db.statement(sql)
        let columns = sqlite3_column_count(statement.handle)
        try db.query(sql, values) { row in rows.append((0..<columns).map { row.isNull(at: $0) ? "NULL" : row.string(at: $0) ?? "" }) }
        return rows
    }
}
