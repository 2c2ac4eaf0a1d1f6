import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// The store's behaviour through its boundary, one suite for every engine: each test runs on
/// SQLite and on PostgreSQL (`TestEngine.all`). Engine-only settings live in `SQLiteStoreTests`.
@Suite("LeakStore")
struct LeakStoreTests {
    static let commit = String(repeating: "ab", count: 20)

    static func run(key: String = "k1", outcomes: [CheckOutcome] = [.leaked, .deallocated],
                    names: (scenario: String, type: String) = ("S", "App.Model")) -> RunRecord {
        RunRecord(project: "app", commit: commit, branch: "main", parents: [], environment: "linux", runKey: key,
                  startedAt: Date(timeIntervalSince1970: 1_800_000_000), checks: outcomes.enumerated().map { index, outcome in
                      CheckRecord(scenario: "\(names.scenario)/\(index)()", file: "S.swift", line: index, type: names.type,
                                  outcome: outcome, waitedMs: 1.25, timeoutMs: 100,
                                  timestamp: Date(timeIntervalSince1970: 1_800_000_000))
                  })
    }

    /// The shards of one commit uploaded at once (transactions of several server threads, or
    /// servers) do not wait for each other: a commit stored already is read in the upload's
    /// commit statement, not upserted — the upsert locked its row until the upload committed,
    /// and a commit's shards ran one at a time (10-check uploads 827–935/s, 1,562/s without).
    @Test(arguments: TestEngine.postgresOnly)
    func uploadsToAStoredCommitDoNotWaitForEachOther(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        _ = try store.ingest(Self.run(key: "first"))
        let holder = try PostgresConnection(url: database.location), other = try PostgresConnection(url: database.location)
        let projectID = try #require(try holder.scalarInt("SELECT id FROM projects WHERE name = 'app'"))
        let upsert = PostgresConnection.commitWithParents(.init(projectID: projectID, sha: Self.commit, branch: "main",
                                                                receivedAt: "2026-12-06T00:00:00Z", parents: PostgresArray.literal([])))
        try holder.execute("BEGIN")
        let held = try holder.scalarInt(sql: upsert)
        // Waiting for the holder's transaction would end in a lock timeout.
        try other.execute("BEGIN; SET LOCAL lock_timeout = 3000")
        let read = try other.scalarInt(sql: upsert)
        try other.execute("COMMIT")
        try holder.execute("COMMIT")
        #expect(held != nil && read == held)
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM commits") } == 1)
    }

    @Test(arguments: TestEngine.all)
    func ingestIsIdempotentPerRunKeyAndRefusesAChangedRun(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        let first = try store.ingest(Self.run())
        #expect(first.created && first.checkCount == 2 && first.leakedCount == 1 && !first.suspect)
        let again = try store.ingest(Self.run())
        #expect(!again.created && again.runID == first.runID)
        #expect(throws: LeakStoreError.runKeyConflict(project: "app", runKey: "k1", existingRunID: first.runID)) {
            try store.ingest(Self.run(outcomes: [.leaked, .leaked]))
        }
        // The leak is a full record; the passing check only counts in its key's state.
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM checks") } == 1)
        #expect(try store.read { try $0.scalarInt("SELECT sum(checked_count) FROM leak_states") } == 2)
    }

    /// The one bound on what the writer keeps between transactions (`WriteSession.transaction`):
    /// a transaction that starts with more than `StoreOptions.internedLimit` ids starts with
    /// none, one that starts with the limit keeps them, and a failed one keeps none; names
    /// interned again after that get the ids they had.
    @Test(arguments: TestEngine.all)
    func theWriterForgetsWhatItInternedPastItsLimitAndAfterAFailure(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open(StoreOptions(internedLimit: 3))
        let first = try store.write { writer in
            try writer.intern(scenarios: ["S/a()", "S/b()"], types: ["T"])
            return [Int64(writer.internedCount), writer.scenarioIDs["S/a()"], writer.scenarioIDs["S/b()"], writer.typeIDs["T"]]
        }
        #expect(first[0] == 3)
        #expect(try store.write { writer in
            _ = try writer.intern(CheckSite(file: "S.swift", line: 1, lifecycle: "release"))
            return writer.internedCount
        } == 4)
        #expect(try store.write { $0.internedCount } == 0)
        try store.write { try $0.intern(scenarios: ["S/a()"], types: []) }
        #expect(throws: LeakStoreError.projectNotFound("none")) {
            try store.write { _ in throw LeakStoreError.projectNotFound("none") }
        }
        let again = try store.write { writer in
            try writer.intern(scenarios: ["S/b()", "S/a()"], types: ["T"])
            return [Int64(writer.internedCount), writer.scenarioIDs["S/a()"], writer.scenarioIDs["S/b()"], writer.typeIDs["T"]]
        }
        #expect(again == first)
    }

    /// `lh_<id>_<secret>`, read as bytes: the id of a well-formed token, nil for anything else.
    @Test func aTokensIDIsReadFromItsBytes() {
        let secret = String(repeating: "0f", count: 32)
        #expect(LeakStore.tokenID(in: "lh_12_" + secret) == 12)
        #expect(LeakStore.tokenID(in: "lh_9223372036854775807_" + secret) == Int64.max)
        for malformed in ["lh_12_" + secret.dropLast(), "lh_12_" + secret + "0", "lh_1_2_" + secret.dropFirst(2), "lx_12_" + secret,
                          "lh__" + secret, "lh_x_" + secret, "lh_12" + secret, "lh_99999999999999999999_" + secret, ""] {
            #expect(LeakStore.tokenID(in: malformed) == nil, "\(malformed)")
        }
    }

    /// A key read-back binds the power of two at or above its key count: eight statements for
    /// every count from 1 to `StoreTuning.keysPerStatement`.
    @Test func aKeyReadBackIsSizedToThePowerOfTwoAtOrAboveItsKeys() {
        let sizes = (1...StoreTuning.keysPerStatement).map(WriteSession.keyReadBackSize)
        #expect(zip(1..., sizes).allSatisfy { count, size in size >= count && size / 2 < count && size & (size - 1) == 0 })
        #expect(Set(sizes).sorted() == [1, 2, 4, 8, 16, 32, 64, 128])
    }

    /// `intern(keys:)` reads a run's unknown keys by statements sized to them and keeps the rows
    /// its insert returns for the new ones: interned in batches of every awkward size, half of
    /// each batch already in `leak_keys` (and forgotten by the session), the session's ids and
    /// usual sites are exactly the table's, and no key is in it twice.
    @Test(arguments: TestEngine.all)
    func keysInternedInBatchesOfEverySizeAreTheTablesRows(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        let (scenarios, typeID, siteID) = try store.write { writer in
            let names = (0..<800).map { "S/\($0)()" }
            try writer.intern(scenarios: names, types: ["App.Model"])
            return (names.map { writer.scenarioIDs[$0]! }, writer.typeIDs["App.Model"]!,
                    try writer.intern(CheckSite(file: "S.swift", line: 1, lifecycle: "release")))
        }
        var next = 0
        for size in [1, 2, 3, 5, 16, 17, 127, 128, 129, 300] {
            let batch = (next..<(next + size)).map { (key: KeyIDs(scenarioID: scenarios[$0], typeID: typeID),
                                                      siteID: $0 % 3 == 0 ? nil : Optional(siteID)) }
            next += size
            // The first half of the batch goes in first, then the session forgets it.
            try store.write { try $0.intern(keys: Array(batch.prefix(size / 2))) }
            let interned = try store.write { writer in
                writer.forgetInterned()
                try writer.intern(keys: batch)
                return batch.map { writer.keyIDs[$0.key] }
            }
            var rows: [KeyIDs: InternedKey] = [:]
            try store.read { db in
                try db.query("SELECT id, scenario_id, type_id, site_id FROM leak_keys") { row in
                    rows[KeyIDs(scenarioID: row.int64(at: 1), typeID: row.int64(at: 2))] =
                        InternedKey(id: row.int64(at: 0), siteID: row.isNull(at: 3) ? nil : row.int64(at: 3))
                }
            }
            #expect(rows.count == next, "batch of \(size)")
            #expect(zip(batch, interned).allSatisfy { wanted, got in
                got != nil && got?.id == rows[wanted.key]?.id && got?.siteID == wanted.siteID && rows[wanted.key]?.siteID == wanted.siteID
            }, "batch of \(size)")
        }
    }

    @Test(arguments: TestEngine.all)
    func aFailedIngestLeavesNoTraceAndLaterIngestsStillWork(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        #expect(throws: LeakStoreError.projectNotFound("app")) { try store.ingest(Self.run()) }
        _ = try store.createProject("app")
        // A refused run in between must not disturb the next one.
        _ = try store.ingest(Self.run(key: "a"))
        _ = try? store.ingest(Self.run(key: "a", outcomes: [.error]))
        let receipt = try store.ingest(Self.run(key: "b", outcomes: Array(repeating: .leaked, count: 20)))
        #expect(receipt.suspect)
        let counts = try store.read { db in
            [try db.scalarInt("SELECT count(*) FROM runs"), try db.scalarInt("SELECT count(*) FROM scenarios"),
             try db.scalarInt("SELECT count(*) FROM checks WHERE scenario_id NOT IN (SELECT id FROM scenarios)")]
        }
        #expect(counts == [2, 20, 0])
    }

    @Test(arguments: TestEngine.all)
    func tokensAreStoredHashedVerifiedAndRevoked(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        let issued = try store.createProject("app")
        #expect(issued.secret.hasPrefix("lh_\(issued.id)_") && issued.secret.count == "lh_\(issued.id)_".count + 64)
        #expect(try store.verifyToken(issued.secret) == .valid(id: issued.id, project: "app", scope: .write))
        let stored = try store.read { try $0.scalarText("SELECT secret_hash FROM tokens WHERE id = ?", [.integer(issued.id)]) }
        #expect(stored?.count == 64 && stored?.contains(issued.secret) == false)

        var tampered = issued.secret
        tampered.removeLast()
        tampered += issued.secret.hasSuffix("0") ? "1" : "0"
        #expect(try store.verifyToken(tampered) == .unknown)

        let read = try store.createToken(project: "app", scope: .read)
        try store.revokeToken(id: issued.id)
        #expect(try store.verifyToken(issued.secret) == .revoked(id: issued.id))
        #expect(try store.verifyToken(id: issued.id) == .revoked(id: issued.id))
        #expect(try store.verifyToken(read.secret) == .valid(id: read.id, project: "app", scope: .read))
        let listed = try store.tokens(project: "app")
        #expect(listed.map(\.id) == [issued.id, read.id])
        #expect(listed.map { $0.revokedAt != nil } == [true, false])
        #expect(throws: LeakStoreError.tokenNotFound(999)) { try store.revokeToken(id: 999) }
        #expect(throws: LeakStoreError.projectExists("app")) { try store.createProject("app") }
        _ = try store.createProject("Zed")
        _ = try store.createProject("alpha")
        #expect(try store.projectNames() == ["Zed", "alpha", "app"], "byte order, as SQLite sorts")
    }

    /// A read is one snapshot: what an upload commits halfway through it is not seen by its
    /// later statements, and is seen by the next read.
    @Test(arguments: TestEngine.all)
    func aReadSeesOneSnapshotWhileUploadsCommit(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        _ = try store.ingest(Self.run(key: "a"))
        let (before, during) = try store.read { db in
            let before = try db.scalarInt("SELECT count(*) FROM runs")
            _ = try store.ingest(Self.run(key: "b"))
            return (before, try db.scalarInt("SELECT sum(checked_count) FROM leak_states") ?? -1)
        }
        #expect(before == 1)
        #expect(during == 2, "the second run's checks were committed after the read began")
        #expect(try store.read { try $0.scalarInt("SELECT sum(checked_count) FROM leak_states") } == 4)
    }

    /// Many writers at once — on PostgreSQL, racing transactions on separate connections — on
    /// one runKey store it once, and on new names intern each name, and each key, once.
    @Test(arguments: TestEngine.all)
    func concurrentWritersStoreARunKeyOnceAndInternANameOnce(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        let receipts = Collected<IngestReceipt>()
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            // Half the writers send the same run; the others each a run of their own with the same new names.
            let run = index % 2 == 0 ? Self.run(key: "same", names: ("Shared", "App.Shared"))
                : Self.run(key: "own-\(index)", names: ("Shared", "App.Shared"))
            if let receipt = try? store.ingest(run) { receipts.append(receipt) }
        }
        let all = receipts.values
        #expect(all.count == 8, "every writer got an answer")
        let same = try store.read { try $0.scalarInt("SELECT count(*) FROM runs WHERE run_key = 'same'") }
        #expect(same == 1)
        #expect(all.filter(\.created).count == 5, "the shared run once, and four runs of their own")
        let counts = try store.read { db in
            [try db.scalarInt("SELECT count(*) FROM runs"), try db.scalarInt("SELECT count(*) FROM types"),
             try db.scalarInt("SELECT count(*) FROM scenarios"), try db.scalarInt("SELECT count(*) FROM checks"),
             try db.scalarInt("SELECT sum(checked_count) FROM leak_states"), try db.scalarInt("SELECT count(*) FROM leak_keys")]
        }
        #expect(counts == [5, 1, 2, 5, 10, 2], "one leak a run is a record; the passing checks only count; each key once")
    }

    /// Many writers at once, each on commits no one uploaded before (CI builds of many branches):
    /// every caller's one call stores its run, and each new commit takes an id of
    /// its own with room after it (`CommitOrder`). On PostgreSQL the writers' transactions
    /// overlap: ids read from the table's largest one collided, and uploads failed after their
    /// retries (`leakhistory-bench ingest` on PostgreSQL: 500s from 8 clients).
    @Test(arguments: TestEngine.all)
    func concurrentWritersOfNewCommitsEachGetAnIdWithRoomAfterIt(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        let failures = Collected<String>()
        let writers = 8, runsEach = 12
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for index in 0..<runsEach {
                var run = Self.run(key: "w\(writer)-\(index)", outcomes: Array(repeating: .deallocated, count: 200) + [.leaked])
                run.commit = String(format: "%040x", 0xC0FFEE_0000 + writer * 1_000 + index)
                do { _ = try store.ingest(run) } catch { failures.append("writer \(writer), run \(index): \(error)") }
            }
        }
        #expect(failures.values.isEmpty, "\(failures.values.prefix(3))")
        let ids = try store.read { db in
            var ids: [Int64] = []
            try db.query("SELECT id FROM commits ORDER BY id") { ids.append($0.int64(at: 0)) }
            return ids
        }
        #expect(ids.count == writers * runsEach)
        let gaps = zip(ids, ids.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= Int64(CommitOrder.spacing) }, "room after every new commit: \(gaps.filter { $0 < 1_024 })")
    }

    @Test(arguments: TestEngine.all)
    func aReadPastItsBudgetIsStoppedAndTheConnectionServesTheNext(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open(StoreOptions(readerCount: 1, queryTimeBudget: .milliseconds(50)))
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
        #expect {
            _ = try store.read { try $0.scalarInt(endless) }
        } throws: { error in
            guard case .queryTimeout? = error as? LeakStoreError else { return false }
            return true
        }
        #expect(try store.read { try $0.scalarInt("SELECT 1") } == 1)
    }

    @Test(arguments: TestEngine.all)
    func reopeningMigratesNothingAndANewerSchemaIsRefused(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let first = try database.open()
        _ = try first.createProject("app")
        let latest = try first.schemaVersion()
        #expect(latest == (engine == .sqlite ? Migration.latestVersion : Migration.postgres.last?.version))
        let appliedAt = try first.read { try $0.scalarText("SELECT max(applied_at) FROM schema_migrations") }
        let second = try database.open()
        #expect(try second.read { try $0.scalarText("SELECT max(applied_at) FROM schema_migrations") } == appliedAt)
        #expect(try second.projectNames() == ["app"])
        try second.write { try $0.connection.run(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 'then')",
            [.integer(Int64(latest + 1))]) }
        let error = #expect(throws: LeakStoreError.self) { try database.open() }
        #expect(error?.description.contains("was migrated by a newer build") == true)
    }

    /// Text that the PostgreSQL engine sends inside array literals (many rows in one statement,
    /// many names interned at once) comes back as it went in, on every engine.
    @Test(arguments: TestEngine.all)
    func awkwardTextRoundTripsThroughInsertsAndInterning(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        _ = try database.open().createProject("app")
        let awkward = ["NULL", "", "a \"quoted\" \\ back\\slash", "comma, {brace} }", "tab\tnew\nline", "ünïcødé ✓", "'single'"]
        var run = Self.run(key: "awkward", outcomes: Array(repeating: .leaked, count: awkward.count))
        for (index, text) in awkward.enumerated() {
            run.checks[index].scenario = "S/\(text)"
            run.checks[index].type = "App.\(text)"
            run.checks[index].file = text
            run.checks[index].message = text
            run.checks[index].fingerprint = text
        }
        let first = try database.open()
        _ = try first.ingest(run)
        // A second store has its own sessions: every name is known to the database, not to them.
        var again = run
        again.runKey = "awkward-again"
        _ = try database.open().ingest(again)
        let commit = try #require(try first.commit(project: "app", sha: Self.commit, limit: 100, cursor: nil))
        #expect(commit.runs.count == 2)
        for stored in commit.runs {
            #expect(stored.leaks.map(\.scenario) == run.checks.map(\.scenario))
            #expect(stored.leaks.map(\.type) == run.checks.map(\.type))
            #expect(stored.leaks.map(\.file) == awkward)
            #expect(stored.leaks.map(\.message) == awkward)
            #expect(stored.leaks.map(\.fingerprint) == awkward)
        }
        let names = try first.read { db in
            [try db.scalarInt("SELECT count(*) FROM scenarios"), try db.scalarInt("SELECT count(*) FROM types"),
             try db.scalarInt("SELECT sum(leaked_count) FROM leak_states")]
        }
        #expect(names == [Int64(awkward.count), Int64(awkward.count), Int64(2 * awkward.count)])
    }

    /// Along the line, the states of many keys are read a batch of keys at a time: keys on
    /// either side of a batch's edge get the same answers, also where a suspect run at a
    /// commit of the line has its usable checks added up.
    @Test(arguments: TestEngine.all)
    func aDiffOfManyKeysAnswersAlikeForEveryBatch(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        let keys = 2 * StoreTuning.keysPerStatement + 44
        let sha = { (number: Int) in String(repeating: "\(number)", count: 40) }
        // Class 0 leaks all along; class 1 is clean at 1 and 2 (where only a suspect run leaks
        // it) and leaks from 3; class 2 leaks at 1, is clean at 2 and leaks from 3.
        func leaks(_ key: Int, at number: Int) -> Bool {
            switch key % 3 {
            case 0: true
            case 1: number >= 3
            default: number != 2
            }
        }
        // Clean checks of other keys keep the runs from looking like a broken harness; the
        // run that leaks every key and nothing else does (it is suspect).
        func run(_ number: Int, key runKey: String, padded: Bool = true, outcome: (Int) -> CheckOutcome) -> RunRecord {
            var run = Self.run(key: runKey, outcomes: (0..<keys).map(outcome))
            run.commit = sha(number)
            run.parents = number == 1 ? [] : [sha(number - 1)]
            for index in run.checks.indices {
                run.checks[index].scenario = "Suite\(index / 5)/test\(index)()"
                run.checks[index].type = "App.Type\(index % 4)"
            }
            if padded {
                run.checks += (0..<keys).map { index in
                    CheckRecord(scenario: "Clean/test\(index)()", file: "C.swift", line: index, type: "App.Clean",
                                outcome: .deallocated, waitedMs: 1, timeoutMs: 100, timestamp: run.startedAt)
                }
            }
            return run
        }
        for number in 1...4 {
            _ = try store.ingest(run(number, key: "c\(number)") { leaks($0, at: number) ? .leaked : .deallocated })
        }
        let suspect = try store.ingest(run(2, key: "c2-broken", padded: false) { _ in .leaked })
        #expect(suspect.suspect)

        let diff = try store.diff(project: "app", base: sha(3), head: sha(4), environment: "linux")
        #expect(diff.leaks.entries.count == keys)
        let byClass = Dictionary(grouping: diff.leaks.entries) { entry in
            Int(entry.scenario.split(separator: "test").last!.dropLast(2))! % 3
        }
        #expect(byClass[0]?.allSatisfy { $0.category == .persisting && $0.firstSeen == sha(1) } == true)
        #expect(byClass[1]?.allSatisfy { $0.category == .persisting && $0.firstSeen == sha(3) } == true)
        // Class 2 is intermittent along the line: whatever the rules make of it, alike for every key.
        let classTwo = try #require(byClass[2]?.first)
        #expect(byClass[2]?.allSatisfy { $0.category == classTwo.category && $0.firstSeen == classTwo.firstSeen } == true)

        let types = try store.leakingTypes(project: "app", branch: "main", environment: "linux")
        #expect(types.types.map(\.type) == (0..<4).map { "App.Type\($0)" })
        #expect(types.types.allSatisfy { $0.firstSeen == sha(1) && $0.leakingScenarios.count == keys / 4 })
        let typeLeaks = try store.typeLeaks(project: "app", type: "App.Type1", branch: "main", environment: "linux", limit: keys)
        #expect(typeLeaks.count == keys / 4)
        for leak in typeLeaks {
            let key = Int(leak.scenario.split(separator: "test").last!.dropLast(2))!
            #expect(leak.introducedBy == (key % 3 == 0 ? sha(1) : sha(3)), "\(leak.scenario)")
        }
    }
    /// Rows of `commit_parents` whose stored parent id is not what a lookup of the parent's sha
    /// in the project gives (both NULL when the parent was never uploaded).
    static func misLinkedParents(_ store: LeakStore) throws -> Int64? {
        try store.read { db in
            try db.scalarInt("""
                SELECT count(*) FROM commit_parents p JOIN commits c ON c.id = p.commit_id
                LEFT JOIN commits pc ON pc.project_id = c.project_id AND pc.sha = p.parent_sha
                WHERE p.parent_id IS DISTINCT FROM pc.id
                """)
        }
    }

    /// Each parent's id is kept with its `commit_parents` row whichever of a commit and its parent
    /// was uploaded first; the walks step by it, and an id that does not match its sha (left
    /// behind by two servers storing at once) is passed over for the lookup by sha.
    @Test(arguments: TestEngine.all)
    func parentIDsFollowCommitsUploadedInAnyOrder(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        let sha = { (number: Int) in String(repeating: "\(number)", count: 40) }
        func run(_ number: Int) -> RunRecord {
            var run = Self.run(key: "r\(number)", outcomes: [number >= 2 ? .leaked : .deallocated]
                + Array(repeating: .deallocated, count: 9))
            run.commit = sha(number)
            run.parents = number == 1 ? [] : [sha(number - 1)]
            return run
        }
        // 3 before its parent 2: its row has no parent id until 2 arrives.
        for number in [1, 3] { _ = try store.ingest(run(number)) }
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM commit_parents WHERE parent_id IS NULL") } == 1)
        for number in [2, 4] { _ = try store.ingest(run(number)) }
        #expect(try Self.misLinkedParents(store) == 0)
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM commit_parents WHERE parent_id IS NULL") } == 0)
        func leakFirstSeen() throws -> String? {
            let diff = try store.diff(project: "app", base: sha(3), head: sha(4), environment: "linux")
            return diff.leaks.entries.first { $0.category == .persisting }?.firstSeen
        }
        // The leak began at 2, along first parents 4, 3, 2, 1.
        #expect(try leakFirstSeen() == sha(2))
        try store.write { writer in
            try writer.connection.run("""
                UPDATE commit_parents SET parent_id = (SELECT id FROM commits WHERE sha = ?)
                WHERE commit_id = (SELECT id FROM commits WHERE sha = ?)
                """, [.text(sha(1)), .text(sha(3))])
        }
        #expect(try Self.misLinkedParents(store) == 1)
        #expect(try leakFirstSeen() == sha(2))

        // A merge: its parents in their order, the second linked once it arrives.
        var merge = run(5)
        merge.parents = [sha(4), sha(9)]
        _ = try store.ingest(merge)
        let parents = { try store.read { db in
            var rows: [String] = []
            try db.query("""
                SELECT p.position, p.parent_sha, p.parent_id IS NOT NULL FROM commit_parents p JOIN commits c ON c.id = p.commit_id
                WHERE c.sha = ? ORDER BY p.position
                """, [.text(sha(5))]) { rows.append("\($0.int(at: 0)) \($0.string(at: 1)!.prefix(1)) \($0.int(at: 2))") }
            return rows
        } }
        #expect(try parents() == ["0 4 1", "1 9 0"])
        _ = try store.ingest(run(9))
        #expect(try parents() == ["0 4 1", "1 9 1"])
        #expect(try Self.misLinkedParents(store) == 1, "only the row spoiled above")
    }

    /// A scenario not checked for a long time (its key's newest state far below the project's
    /// newest commit, its older states settled in blocks): its history is its newest commits,
    /// paged by its cursor, on every engine.
    @Test(arguments: TestEngine.all)
    func aScenarioNotCheckedLatelyHasItsNewestCommitsAsItsHistory(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        var shas: [String] = []
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        func check(_ scenario: String, _ type: String, _ outcome: CheckOutcome) -> CheckRecord {
            CheckRecord(scenario: scenario, file: "S.swift", line: 1, type: type, outcome: outcome, waitedMs: 1, timeoutMs: 100, timestamp: at)
        }
        for index in 0..<90 {
            shas.append(String(format: "%040x", index + 1))
            var checks = [check("New/y()", "App.New", .deallocated)]
            if index < 12 { checks.append(check("Old/x()", "App.Old", index % 3 == 0 ? .leaked : .deallocated)) }
            _ = try store.ingest(RunRecord(project: "app", commit: shas[index], branch: "main", parents: index == 0 ? [] : [shas[index - 1]],
                                           environment: "linux", runKey: "r\(index)", startedAt: at, checks: checks))
            // Its first states settled in blocks, its newest ones not.
            if index == 6 { _ = try store.write { try StateBlobs.settle(maxStates: 25, db: $0.connection) } }
        }
        let page = try store.scenarioHistory(project: "app", scenario: "Old/x()", branch: nil, environment: "linux", limit: 4, before: nil)
        #expect(page.commits.map(\.commit) == Array(shas[8..<12]))
        #expect(page.commits.map { $0.keys.map(\.state) } == [[.clean], [.leaked], [.clean], [.clean]])
        #expect(page.next == shas[8])
        let older = try store.scenarioHistory(project: "app", scenario: "Old/x()", branch: nil, environment: "linux", limit: 4,
                                              before: page.next)
        #expect(older.commits.map(\.commit) == Array(shas[4..<8]))
        let whole = try store.scenarioHistory(project: "app", scenario: "Old/x()", branch: nil, environment: "linux", limit: 50, before: nil)
        #expect(whole.commits.map(\.commit) == Array(shas[0..<12]) && whole.next == nil)
    }
}
