import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// A run bigger than `StoreOptions.ingestSliceChecks` is stored in slices, each its own short
/// write transaction, under a pending upload that no reader reaches until it is published.
@Suite("Sliced ingest")
struct SlicedIngestTests {
    /// Every run of `AnswerHistory` has more checks than this: each is stored in several slices,
    /// and the re-runs and second environments publish into commits that already have runs.
    static let sliced = StoreOptions(ingestSliceChecks: 7)

    /// What a reader can see: every answer of the history, and the project page.
    static func visible(_ store: LeakStore, _ history: AnswerHistory) throws -> [String] {
        try history.answers(store).map { "\($0.question): \($0.answer)" }
            + [CanonicalText.render(try store.activity(project: AnswerHistory.project, limit: 1_000))]
    }

    /// Rows a pending upload leaves while it is being stored.
    static func pendingRows(_ store: LeakStore) throws -> Int64 {
        try store.read { db in
            (try db.scalarInt("SELECT count(*) FROM runs WHERE content_hash = 'pending'") ?? -1)
                + (try db.scalarInt("SELECT count(*) FROM commits WHERE sha LIKE 'pending:%'") ?? -1)
        }
    }

    /// Every full record and key state, by names rather than ids (the slices intern names in
    /// another order, and publishing into a commit with runs leaves a commit id unused).
    static func storedRows(_ store: LeakStore) throws -> [String] {
        try store.read { db in
            var rows: [String] = []
            try db.query("""
                SELECT r.run_key, s.name, t.name, k.outcome, cs.file, cs.line, cs.lifecycle, k.before_pass, k.message
                FROM checks k JOIN runs r ON r.id = k.run_id JOIN scenarios s ON s.id = k.scenario_id
                     JOIN types t ON t.id = k.type_id JOIN check_sites cs ON cs.id = k.site_id
                ORDER BY k.id
                """, []) { row in rows.append((0..<9).map { row.string(at: Int32($0)) ?? "-" }.joined(separator: " ")) }
            try db.query("""
                SELECT c.sha, e.name, s.name, t.name, ls.checked_count, ls.leaked_count, ls.late_release_count,
                       ls.error_count, cs.file, cs.line, ls.slowest_pass_us
                FROM leak_states ls JOIN commits c ON c.id = ls.commit_id JOIN environments e ON e.id = ls.environment_id
                     JOIN leak_keys lk ON lk.id = ls.key_id JOIN scenarios s ON s.id = lk.scenario_id
                     JOIN types t ON t.id = lk.type_id
                     -- The first row-less pass's site: the key's usual one when the state leaves it out.
                     LEFT JOIN check_sites cs ON ls.slowest_pass_us IS NOT NULL AND cs.id = coalesce(ls.passed_site_id, lk.site_id)
                ORDER BY c.sha, e.name, s.name, t.name
                """, []) { row in rows.append((0..<11).map { row.string(at: Int32($0)) ?? "-" }.joined(separator: " ")) }
            return rows
        }
    }

    static func rowCounts(_ store: LeakStore) throws -> [Int64] {
        try store.read { db in
            try ["runs", "commits", "commit_parents", "checks", "leak_states"].map {
                try db.scalarInt("SELECT count(*) FROM \($0)") ?? -1
            }
        }
    }

    /// A store in slices of 7 checks holding a short history but its last run, and that run.
    static func everyRunButTheLast(_ engine: TestEngine) throws -> (TestDatabase, LeakStore, AnswerHistory, RunRecord) {
        let history = AnswerHistory(commitCount: 12)
        let database = try TestDatabase(engine)
        let store = try database.open(Self.sliced)
        _ = try store.createProject(AnswerHistory.project)
        for run in history.runs.dropLast() { _ = try store.ingest(run) }
        return (database, store, history, history.runs[history.runs.count - 1])
    }

    @Test(arguments: TestEngine.all)
    func runsStoredInSlicesAnswerLikeRunsStoredAtOnce(_ engine: TestEngine) throws {
        let history = AnswerHistory()
        #expect(history.runs.allSatisfy { $0.checks.count > Self.sliced.ingestSliceChecks })
        let atOnce = try TestDatabase(engine), inSlices = try TestDatabase(engine)
        let whole = try atOnce.open(), sliced = try inSlices.open(Self.sliced)
        try history.upload(into: whole)
        let slices = Collected<Int>()
        sliced.sliceObserver.withLock { $0 = { slices.append($0) } }
        try history.upload(into: sliced)
        #expect(slices.values.count >= history.runs.count * 3, "every run went in several slices")
        #expect(try Self.visible(sliced, history) == Self.visible(whole, history))
        #expect(try Self.pendingRows(sliced) == 0)
        #expect(try Self.rowCounts(sliced) == Self.rowCounts(whole))
        #expect(try Self.storedRows(sliced) == Self.storedRows(whole))
    }

    /// A reader between two slices sees the store as it was before the upload, whether the run's
    /// commit is new or already has runs (the publishing transaction merges it then).
    @Test(arguments: TestEngine.all)
    func aReaderBetweenSlicesSeesNothingOfTheRun(_ engine: TestEngine) throws {
        let history = AnswerHistory(commitCount: 12)
        let database = try TestDatabase(engine)
        let store = try database.open(Self.sliced)
        _ = try store.createProject(AnswerHistory.project)
        // The last run goes to a new commit, the one before it to a commit with runs.
        var runs = history.runs
        let last = runs.removeLast()
        var again = runs[runs.count - 1]
        again.runKey = "again"
        for run in runs { _ = try store.ingest(run) }
        for run in [again, last] {
            let before = try Self.visible(store, history)
            let seen = Collected<[String]>()
            store.sliceObserver.withLock { $0 = { _ in seen.append(try Self.visible(store, history)) } }
            #expect(try store.ingest(run).created)
            store.sliceObserver.withLock { $0 = nil }
            #expect(seen.values.count >= 3)
            #expect(seen.values.allSatisfy { $0 == before })
            #expect(try Self.visible(store, history) != before)
        }
        #expect(try Self.pendingRows(store) == 0)
    }

    @Test(arguments: TestEngine.all)
    func anUploadThatFailsMidwayLeavesNothing(_ engine: TestEngine) throws {
        let (database, store, history, last) = try Self.everyRunButTheLast(engine)
        defer { withExtendedLifetime(database) {} }
        let before = try Self.visible(store, history), rows = try Self.rowCounts(store)
        struct Interrupted: Error {}
        store.sliceObserver.withLock { $0 = { slice in if slice == 2 { throw Interrupted() } } }
        #expect(throws: Interrupted.self) { try store.ingest(last) }
        #expect(try Self.visible(store, history) == before)
        #expect(try Self.rowCounts(store) == rows)
        #expect(try Self.pendingRows(store) == 0)
        // The same upload again is stored as new.
        store.sliceObserver.withLock { $0 = nil }
        #expect(try store.ingest(last).created)
    }

    /// A server killed mid-way leaves its pending upload; the sweep removes it once it is older
    /// than any upload can take, and never a young one (another server's upload in progress).
    @Test(arguments: TestEngine.all)
    func theSweepRemovesAbandonedUploadsAndNotYoungOnes(_ engine: TestEngine) throws {
        let (database, store, history, last) = try Self.everyRunButTheLast(engine)
        defer { withExtendedLifetime(database) {} }
        let before = try Self.visible(store, history), rows = try Self.rowCounts(store)
        let removed = Collected<(young: Int, old: Int)>()
        store.sliceObserver.withLock {
            $0 = { slice in
                guard slice == 1 else { return }
                removed.append((try store.removeAbandonedUploads(receivedBefore: Date(timeIntervalSinceNow: -60)),
                                try store.removeAbandonedUploads(receivedBefore: Date(timeIntervalSinceNow: 60))))
            }
        }
        // The upload in progress whose slices were swept fails (nothing acknowledged).
        #expect(throws: (any Error).self) { try store.ingest(last) }
        #expect(removed.values.count == 1 && removed.values.first?.young == 0 && removed.values.first?.old == 1)
        #expect(try Self.visible(store, history) == before)
        #expect(try Self.rowCounts(store) == rows)
        #expect(try Self.pendingRows(store) == 0)
        #expect(try store.removeAbandonedUploads(receivedBefore: Date(timeIntervalSinceNow: 60)) == 0)
        // A placeholder commit a published run left behind (its server died before clearing it).
        try store.write { writer in
            try writer.connection.run("""
                INSERT INTO commits (project_id, sha, branch, first_seen)
                VALUES (1, 'pending:00000000000000000000000000000001', NULL, '2026-01-01T00:00:00.000Z')
                """)
        }
        #expect(try Self.pendingRows(store) == 1)
        #expect(try store.removeAbandonedUploads(receivedBefore: Date(timeIntervalSinceNow: 60)) == 1)
        #expect(try Self.pendingRows(store) == 0)
    }

    /// The same run key stored by another request while a big upload is pending: the unique run
    /// key decides at publishing; the loser removes its slices and answers with the winner's
    /// receipt when the content is the same, and with the conflict when it is not.
    @Test(arguments: TestEngine.all)
    func theRunKeyDecidesARace(_ engine: TestEngine) throws {
        let (database, store, _, last) = try Self.everyRunButTheLast(engine)
        defer { withExtendedLifetime(database) {} }
        var other = last
        other.checks.removeLast()
        for (rival, sameContent) in [(last, true), (other, false)] {
            var big = last
            big.runKey = "race-\(sameContent)"
            let winner = RunRecord(project: rival.project, commit: rival.commit, branch: rival.branch, parents: rival.parents,
                                   environment: rival.environment, runKey: big.runKey, startedAt: rival.startedAt,
                                   checks: rival.checks)
            // The rival is stored, in slices of its own, between the first two slices of `big`.
            let started = Collected<Bool>(), won = Collected<IngestReceipt>()
            store.sliceObserver.withLock {
                $0 = { _ in
                    guard started.values.isEmpty else { return }
                    started.append(true)
                    won.append(try store.ingest(winner))
                }
            }
            if sameContent {
                let receipt = try store.ingest(big)
                let first = try #require(won.values.last)
                #expect(first.created && !receipt.created && receipt.runID == first.runID)
            } else {
                #expect(throws: LeakStoreError.self) { try store.ingest(big) }
            }
            store.sliceObserver.withLock { $0 = nil }
            #expect(try Self.pendingRows(store) == 0)
            #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM runs WHERE run_key = ?", [.text(big.runKey)]) } == 1)
        }
    }

    static func commitID(_ store: LeakStore, _ sha: String) throws -> Int64? {
        try store.read { try $0.scalarInt("SELECT id FROM commits WHERE sha = ?", [.text(sha)]) }
    }

    /// A re-run, big enough to go in slices and not suspect, of the newest commit of `history`
    /// (but its last run's) whose runs have key states.
    static func rerun(_ history: AnswerHistory) throws -> RunRecord {
        var again = try #require(history.runs.dropLast().last { !RunTally($0.checks).suspect })
        again.runKey = "again"
        return again
    }

    /// The slices that store a run's records (`ingestSliceChecks` checks each); its key states'
    /// slices come next.
    static func recordSlices(_ run: RunRecord) -> Int {
        (run.checks.count + sliced.ingestSliceChecks - 1) / sliced.ingestSliceChecks
    }

    /// A big run onto a commit that already has runs adds its key states to the commit's when it
    /// is published: both engines pack states (SQLite's blobs, PostgreSQL's arrays), where that is
    /// a few rows, so the commit keeps its id whether the next one is taken or not (the commit is
    /// not rebuilt under the next id, as it was while PostgreSQL kept a row a state). A reader at every slice sees
    /// the store as before, and afterwards everything is as if the run had been stored at once.
    @Test(arguments: TestEngine.all, [false, true])
    func aBigRunOntoACommitWithRunsKeepsItsIDAndAnswersAsOneUpload(_ engine: TestEngine, nextIDTaken: Bool) throws {
        let (database, store, history, _) = try Self.everyRunButTheLast(engine)
        defer { withExtendedLifetime(database) {} }
        let again = try Self.rerun(history)
        let atOnce = try TestDatabase(engine)
        let whole = try atOnce.open()
        _ = try whole.createProject(AnswerHistory.project)
        for run in history.runs.dropLast() + [again] { _ = try whole.ingest(run) }
        let replaced = try #require(try Self.commitID(store, again.commit))
        let filler = "pending:00000000000000000000000000000002"
        if nextIDTaken {
            try store.write { writer in
                try writer.connection.run("""
                    INSERT INTO commits (id, project_id, sha, branch, first_seen) VALUES (?, 1, ?, NULL, '2026-01-01T00:00:00.000Z')
                    """, [.integer(replaced + 1), .text(filler)])
            }
        }
        let before = try Self.visible(store, history)
        let seen = Collected<[String]>()
        store.sliceObserver.withLock { $0 = { _ in seen.append(try Self.visible(store, history)) } }
        #expect(try store.ingest(again).created)
        store.sliceObserver.withLock { $0 = nil }
        #expect(seen.values.count > Self.recordSlices(again))
        #expect(seen.values.allSatisfy { $0 == before })
        #expect(try Self.commitID(store, again.commit) == replaced)
        if nextIDTaken {
            try store.write { try $0.connection.run("DELETE FROM commits WHERE sha = ?", [.text(filler)]) }
        }
        #expect(try Self.visible(store, history) == Self.visible(whole, history))
        #expect(try Self.storedRows(store) == Self.storedRows(whole))
        #expect(try Self.rowCounts(store) == Self.rowCounts(whole))
        #expect(try Self.pendingRows(store) == 0)
        // The commit's children name it by its id.
        #expect(try LeakStoreTests.misLinkedParents(store) == 0)
    }

    /// A run stored at the commit while a big run's slices are stored: the big run is added to
    /// the commit with it when it is published, and every check of both is counted once.
    @Test(arguments: TestEngine.all)
    func aRunThatReachesTheCommitDuringABigUploadIsKept(_ engine: TestEngine) throws {
        let (database, store, history, _) = try Self.everyRunButTheLast(engine)
        defer { withExtendedLifetime(database) {} }
        let again = try Self.rerun(history)
        var rival = again
        rival.runKey = "small"
        rival.checks = Array(again.checks.prefix(Self.sliced.ingestSliceChecks))
        let small = rival
        let replaced = try #require(try Self.commitID(store, again.commit))
        let copying = Self.recordSlices(again)
        store.sliceObserver.withLock { $0 = { slice in if slice == copying { _ = try store.ingest(small) } } }
        #expect(try store.ingest(again).created)
        store.sliceObserver.withLock { $0 = nil }
        #expect(try Self.commitID(store, again.commit) == replaced)
        let (counted, checked) = try store.read { db in
            (try db.scalarInt("SELECT sum(checked_count) FROM leak_states WHERE commit_id = ?", [.integer(replaced)]),
             try db.scalarInt("SELECT sum(check_count) FROM runs WHERE commit_id = ? AND suspect = 0", [.integer(replaced)]))
        }
        #expect(counted != nil && counted == checked)
        let runsThere = try store.read { try $0.scalarInt("SELECT count(*) FROM runs WHERE commit_id = ?", [.integer(replaced)]) }
        #expect(runsThere == Int64(history.runs.dropLast().filter { $0.commit == again.commit }.count + 2))
        #expect(try Self.pendingRows(store) == 0)
    }

    /// The files as a server killed in the middle of a big upload onto a commit with runs leaves
    /// them (between two of its slices, checkpoints held back): reopened, the store answers as
    /// before the upload, the sweep removes the pending upload and what it stored, and the upload
    /// sent again is stored.
    @Test func aServerKilledDuringABigUploadRestartsWithTheCommitAsItWas() throws {
        let (database, store, history, _) = try Self.everyRunButTheLast(.sqlite)
        defer { withExtendedLifetime(database) {} }
        let again = try Self.rerun(history)
        let before = try Self.visible(store, history), rows = try Self.rowCounts(store)
        let folder = try TemporaryDatabase()
        let killed = folder.path
        let checkpointer = try #require((store.engine as? SQLiteEngine)?.checkpointer)
        let copying = Self.recordSlices(again)
        store.sliceObserver.withLock {
            $0 = { slice in
                guard slice == copying else { return }
                try checkpointer.whilePaused {
                    for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: database.location + suffix) {
                        try FileManager.default.copyItem(atPath: database.location + suffix, toPath: killed + suffix)
                    }
                }
            }
        }
        #expect(try store.ingest(again).created)
        store.sliceObserver.withLock { $0 = nil }
        let restarted = try LeakStore(path: killed, options: Self.sliced)
        #expect(try Self.pendingRows(restarted) == 2)
        #expect(try Self.visible(restarted, history) == before)
        #expect(try restarted.removeAbandonedUploads(receivedBefore: Date(timeIntervalSinceNow: 60)) == 1)
        #expect(try Self.rowCounts(restarted) == rows)
        #expect(try Self.pendingRows(restarted) == 0)
        #expect(try restarted.ingest(again).created)
        #expect(try Self.visible(restarted, history) == Self.visible(store, history))
        #expect(try Self.storedRows(restarted) == Self.storedRows(store))
    }
}
