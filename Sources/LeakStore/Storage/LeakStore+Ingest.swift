import Foundation
import LeakReport
import Synchronization

extension LeakStore {
    /// Stores one run and its checks, and updates the per-commit leak states. Readers see all of
    /// it or nothing.
    ///
    /// A run of at most `StoreOptions.ingestSliceChecks` checks is stored in one transaction. A
    /// bigger one is stored in slices of that many checks, each its own short write transaction,
    /// so that other writes wait for one slice, not the whole run: the slices go under a
    /// `PendingUpload` that no reader reaches, and one short transaction publishes it. If the
    /// upload fails on the way, its slices are removed; if the server dies, the background
    /// sweep removes them once they are older than any request can take
    /// (`removeAbandonedUploads`).
    ///
    /// The same `runKey` with the same content returns the first run's receipt with
    /// `created == false` and adds nothing.
    /// - Parameters:
    ///   - contentHash: a digest of the run's canonical form; `RunRecord.contentHash` by default.
    ///   - credential: checked in the first transaction, before anything is written.
    /// - Throws: `LeakStoreError.projectNotFound`, `.runKeyConflict`, or `SQLiteError`; what
    ///   `credential.authorize` throws.
    public func ingest(_ run: RunRecord, contentHash: String?, credential: CredentialCheck?) throws -> IngestReceipt {
        if run.checks.count > ingestSliceChecks {
            return try ingestInSlices(run, hash: contentHash ?? run.contentHash(), receivedAt: ReportTimestamp.string(from: Date()),
                                      tally: RunTally(run.checks), credential: credential)
        }
        let whole = WholeRun(run, contentHash: contentHash)
        return try write(cost: run.checks.count) { try store(whole, $0, credential: credential) }
    }

    public func ingest(_ run: RunRecord, contentHash: String?, credential: CredentialCheck?,
                       completion: @escaping @Sendable (Result<IngestReceipt, any Error>) -> Void) {
        guard run.checks.count <= ingestSliceChecks else {
            completion(Result { try ingest(run, contentHash: contentHash, credential: credential) })
            return
        }
        let whole = WholeRun(run, contentHash: contentHash)
        // Written by the body (again, if the engine runs it again), read once it has committed.
        let receipt = Mutex<IngestReceipt?>(nil)
        engine.writeDetached(cost: run.checks.count, { [self] writer in
            let stored = try store(whole, writer, credential: credential)
            receipt.withLock { $0 = stored }
        }, completion: { failure in
            if let failure { return completion(.failure(failure)) }
            guard let stored = receipt.withLock({ $0 }) else {
                return completion(.failure(LeakStoreError.unavailable("the run's write committed without a receipt")))
            }
            completion(.success(stored))
        })
    }

    /// A run stored in one transaction, and what is worked out of it before the transaction.
    private struct WholeRun: Sendable {
        let run: RunRecord
        let hash: String
        let receivedAt: String
        let tally: RunTally
        let retainPaths: [String?]

        init(_ run: RunRecord, contentHash: String?) {
            self.run = run
            hash = contentHash ?? run.contentHash()
            receivedAt = ReportTimestamp.string(from: Date())
            tally = RunTally(run.checks)
            retainPaths = run.checks.map { $0.retainPath.map(RetainPathJSON.text) }
        }
    }

    /// Stores a run of at most `ingestSliceChecks` checks in the write transaction of `writer`.
    /// Two servers racing on one runKey: the unique (project_id, run_key) makes the loser's
    /// insert fail, the engine runs this again, and the second pass finds the winner's run.
    private func store(_ whole: WholeRun, _ writer: WriteSession, credential: CredentialCheck?) throws -> IngestReceipt {
        let (run, hash, tally) = (whole.run, whole.hash, whole.tally)
        let db = writer.connection
        try check(credential, on: db)
        let (projectID, existing) = try project(db, run.project, runKey: run.runKey)
        if let existing { return try existing.receipt(for: run, hash: hash) }
        let commitID = try upsertCommit(db, projectID: projectID, run: run, receivedAt: whole.receivedAt)
        let runID = try insertRun(db, projectID: projectID, run: run, runKey: run.runKey, hash: hash, commitID: commitID,
                                  receivedAt: whole.receivedAt, tally: tally)
        try CompactCheckWriter.live.store(try incomingChecks(writer, run.checks[...], retainPaths: whole.retainPaths[...],
                                                             suspect: tally.suspect),
                                          runID: runID, commitID: commitID, environment: run.environment,
                                          suspect: tally.suspect, writer: writer)
        return tally.receipt(runID: runID, created: true)
    }

    /// A big run: its pending upload, its slices, and the publishing transaction.
    private func ingestInSlices(_ run: RunRecord, hash: String, receivedAt: String, tally: RunTally,
                                credential: CredentialCheck?) throws -> IngestReceipt {
        let started: Result<PendingUpload, ExistingRun> = try write(cost: ingestSliceChecks) { writer in
            let db = writer.connection
            try check(credential, on: db)
            let (projectID, existing) = try project(db, run.project, runKey: run.runKey)
            if let existing { return .failure(existing) }
            let placeholder = PendingUpload.newPlaceholder()
            guard let commitID = try db.scalarInt(sql: """
                INSERT INTO commits (id, project_id, sha, branch, first_seen)
                VALUES (\(raw: CommitOrder.newID(on: db)), \(projectID), \(placeholder), NULL, \(receivedAt)) RETURNING id
                """)
            else { throw LeakStoreError.unavailable("the pending commit insert returned no id") }
            let runID = try insertRun(db, projectID: projectID, run: run, runKey: placeholder, hash: PendingUpload.contentHash,
                                      commitID: commitID, receivedAt: receivedAt, tally: tally)
            return .success(PendingUpload(runID: runID, commitID: commitID, placeholder: placeholder, receivedAt: receivedAt))
        }
        let pending: PendingUpload
        switch started {
        case let .failure(existing): return try existing.receipt(for: run, hash: hash)
        case let .success(upload): pending = upload
        }
        do {
            // The records go slice by slice in upload order; the key states, gathered meanwhile
            // (the placeholder commit holds this run alone), go afterwards in key order.
            var compact = CompactRun()
            var slice = 0
            func sliceStored() throws {
                try sliceObserver.withLock { $0 }?(slice)
                slice += 1
            }
            for start in stride(from: 0, to: run.checks.count, by: ingestSliceChecks) {
                let range = start..<min(start + ingestSliceChecks, run.checks.count)
                let retainPaths = run.checks[range].map { $0.retainPath.map(RetainPathJSON.text) }
                let stored = try write(cost: ingestSliceChecks) { writer in
                    try CompactCheckWriter.live.storeRecords(try incomingChecks(writer, run.checks[range], retainPaths: retainPaths[...],
                                                                                suspect: tally.suspect),
                                                             runID: pending.runID, suspect: tally.suspect, writer: writer,
                                                             after: compact)
                }
                compact.add(stored)
                try sliceStored()
            }
            let states = compact.sortedStates, stateSlice = stateSliceKeys
            compact = CompactRun()
            for start in stride(from: 0, to: states.count, by: stateSlice) {
                try write(cost: ingestSliceChecks) { writer in
                    try CompactCheckWriter.live.storeStates(
                        states[start..<min(start + stateSlice, states.count)], commitID: pending.commitID,
                        environmentID: try writer.intern(run.environment, in: "environments"), writer: writer)
                }
                try sliceStored()
            }
            let published: Result<IngestReceipt, ExistingRun> = try write(cost: ingestSliceChecks) { writer in
                try publish(pending, run: run, hash: hash, tally: tally, writer: writer)
            }
            switch published {
            case let .success(receipt):
                // What no reader reaches any more — the placeholder commit's own key states, once
                // copied to the commit's — goes now, in slices (the sweep removes it if this fails).
                try? removePendingUpload(pending)
                try? settleBacklog()
                return receipt
            case let .failure(existing):
                try removePendingUpload(pending)
                return try existing.receipt(for: run, hash: hash)
            }
        } catch {
            // Best effort: what is left is removed by the background sweep once it is old enough.
            try? removePendingUpload(pending)
            throw error
        }
    }

    /// Settles packed key states (`StateBlobs`) a batch a transaction while batches wait: a big
    /// run's, once published, settle in writes of their own, not inside the next uploads', and
    /// readers of key ranges never hold more than about a batch of them unsettled.
    private func settleBacklog() throws {
        while try write(cost: ingestSliceChecks, { writer in
            try StateBlobs.settleBacklog(session: writer, db: writer.connection)
        }) {}
    }

    /// Key states a slice stores or removes: a key state costs more than a check (a row in three
    /// indexes, the by-type one far from its neighbours), so a quarter as many.
    private var stateSliceKeys: Int { max(1, ingestSliceChecks / 4) }

    /// Makes a pending upload the run it is, in one transaction, and returns its receipt; what
    /// is left of the pending upload is for `removePendingUpload`:
    /// - no run has reached the run's commit yet: the placeholder commit takes the run's sha;
    /// - otherwise the pending commit's packed states (the run's) are added to the commit's here
    ///   (`StateBlobs.copy`: a few rows), and the placeholder is left.
    private func publish(_ pending: PendingUpload, run: RunRecord, hash: String, tally: RunTally,
                         writer: WriteSession) throws -> Result<IngestReceipt, ExistingRun> {
        let db = writer.connection
        guard let projectID = try db.scalarInt("SELECT project_id FROM runs WHERE id = ? AND content_hash = ?",
                                               [.integer(pending.runID), .text(PendingUpload.contentHash)])
        else { throw LeakStoreError.unavailable("the upload's stored slices were removed as abandoned; send it again") }
        if let existing = try existingRun(db, projectID: projectID, runKey: run.runKey) { return .failure(existing) }
        let sha = run.commit.lowercased()
        let commitID: Int64
        if let existingCommit = try db.scalarInt("SELECT id FROM commits WHERE project_id = ? AND sha = ?",
                                                 [.integer(projectID), .text(sha)]) {
            let environmentID = try writer.intern(run.environment, in: "environments")
            // Records of the run that came before a key's first row-less pass no longer do when an
            // earlier run at the commit passed the key.
            try CompactCheckWriter.live.unmarkRecordsAfterEarlierPasses(runID: pending.runID, commitID: existingCommit,
                                                                       environmentID: environmentID, db: db)
            commitID = existingCommit
            // The pending commit's blobs hold the run's states already: copied after the commit's
            // (in publish order), a few blobs (rows of arrays), not a row a state.
            try StateBlobs.copy(of: pending.commitID, into: commitID, session: writer, db: db)
            try db.run("UPDATE commits SET branch = coalesce(branch, ?) WHERE id = ?", [.text(run.branch), .integer(commitID)])
        } else {
            commitID = pending.commitID
            try db.run("UPDATE commits SET sha = ?, branch = ? WHERE id = ?", [.text(sha), .text(run.branch), .integer(commitID)])
        }
        try db.insertParents(commitID: commitID, run.parents)
        try db.linkParents(projectID: projectID, commitID: commitID, sha: sha)
        try db.run("UPDATE runs SET run_key = ?, content_hash = ?, commit_id = ? WHERE id = ?",
                   [.text(run.runKey), .text(hash), .integer(commitID), .integer(pending.runID)])
        return .success(tally.receipt(runID: pending.runID, created: true))
    }

    /// Removes what a pending upload stored, a slice per transaction, then its run and commit:
    /// the run's records while the run is pending, the key states while the commit still has its
    /// placeholder sha. Does nothing to a published run, nor to a commit that became the run's.
    func removePendingUpload(_ pending: PendingUpload) throws {
        let run = pending.runID, commit = pending.commitID
        let runIsPending: SQL = "SELECT 1 FROM runs WHERE id = \(run) AND content_hash = \(PendingUpload.contentHash)"
        // Each step, while its condition holds and something is left (the second statement),
        // removes a slice a transaction (the third).
        typealias Removal = (whileTrue: SQL, anyLeft: SQL, delete: SQL)
        let records: Removal = (runIsPending, "SELECT 1 FROM checks WHERE run_id = \(run) LIMIT 1",
                                "DELETE FROM checks WHERE id IN (SELECT id FROM checks WHERE run_id = \(run) ORDER BY id LIMIT \(ingestSliceChecks))")
        // A pending commit's states are its blobs (a slice's states each at most), on PostgreSQL
        // its rows of arrays.
        func packedRows(_ db: any SQLConnection) -> Removal {
            let states = db.keyStates
            return ("SELECT 1 FROM commits WHERE id = \(commit) AND sha = \(pending.placeholder)", states.pendingLeft(commitID: commit),
                    states.pendingDelete(commitID: commit, rows: Int64(max(1, ingestSliceChecks / StoreTuning.blobStates))))
        }
        let steps: [(any SQLConnection) -> Removal] = [{ _ in records }, packedRows]
        for step in steps {
            while try write(cost: ingestSliceChecks, { writer in
                let db = writer.connection
                let removal = step(db)
                guard try db.scalarInt(sql: removal.whileTrue) != nil, try db.scalarInt(sql: removal.anyLeft) != nil else { return false }
                try db.run(sql: removal.delete)
                return true
            }) {}
        }
        try write { writer in
            let db = writer.connection
            if try db.scalarInt(sql: runIsPending) != nil {
                try db.run(sql: "DELETE FROM runs WHERE id = \(run)")
            }
            try db.run(sql: """
                DELETE FROM commits WHERE id = \(commit) AND sha = \(pending.placeholder)
                  AND NOT EXISTS (SELECT 1 FROM runs WHERE commit_id = \(commit))
                """)
        }
    }

    /// Removes the uploads left pending by a server that died while storing them, and the
    /// placeholders of published ones it had not cleared yet: those received before `cutoff`,
    /// which must be older than any upload can take (several servers may share a PostgreSQL
    /// database, and another one's upload in progress is only told apart by its age).
    /// - Returns: how many were removed.
    public func removeAbandonedUploads(receivedBefore cutoff: Date) throws -> Int {
        var abandoned: [PendingUpload] = []
        try read { db in
            // Placeholder shas start with `pending:`, real ones are hex digits.
            try db.query(sql: """
                SELECT c.id, c.sha, c.first_seen, coalesce((SELECT min(r.id) FROM runs r WHERE r.commit_id = c.id), 0) AS run_id
                FROM commits c WHERE \(raw: PendingUpload.isPlaceholder("c")) AND c.first_seen < \(ReportTimestamp.string(from: cutoff))
                ORDER BY c.id
                """) { row in
                abandoned.append(PendingUpload(runID: row.int64("run_id"), commitID: row.int64("id"),
                                               placeholder: row.string("sha") ?? "", receivedAt: row.string("first_seen") ?? ""))
            }
        }
        for pending in abandoned { try removePendingUpload(pending) }
        return abandoned.count
    }

    /// The project's id, and the run already stored under `runKey` in it: one statement, as they
    /// were two round trips of every upload on PostgreSQL.
    private func project(_ db: any SQLConnection, _ project: String, runKey: String) throws -> (id: Int64, existing: ExistingRun?) {
        var found: (id: Int64, existing: ExistingRun?)?
        try db.query(sql: """
            SELECT p.id AS project_id, \(raw: ExistingRun.columns)
            FROM projects p LEFT JOIN runs r ON r.project_id = p.id AND r.run_key = \(runKey)
            WHERE p.name = \(project)
            """) { row in
            found = (row.int64("project_id"), row.isNull("id") ? nil : ExistingRun(row: row))
        }
        guard let found else { throw LeakStoreError.projectNotFound(project) }
        return found
    }

    /// The run already stored under a run key.
    struct ExistingRun: Error {
        var hash: String
        var receipt: IngestReceipt

        /// The columns of `runs r` that `init(row:)` reads: text of every upload's first
        /// statement, written out once.
        static let columns = "r.id, r.content_hash, r.check_count, r.leaked_count, r.late_release_count, r.error_count, r.suspect"

        /// The run of a row that selects `columns`.
        init(row: any SQLRow) {
            hash = row.string("content_hash") ?? ""
            receipt = IngestReceipt(
                runID: row.int64("id"), created: false, checkCount: row.int("check_count"), leakedCount: row.int("leaked_count"),
                lateReleaseCount: row.int("late_release_count"), errorCount: row.int("error_count"), suspect: row.int("suspect") != 0)
        }

        /// Its receipt when `run` is the same upload again, or the conflict.
        func receipt(for run: RunRecord, hash: String) throws -> IngestReceipt {
            guard self.hash == hash else {
                throw LeakStoreError.runKeyConflict(project: run.project, runKey: run.runKey, existingRunID: receipt.runID)
            }
            return receipt
        }
    }

    private func existingRun(_ db: any SQLConnection, projectID: Int64, runKey: String) throws -> ExistingRun? {
        var found: ExistingRun?
        try db.query(sql: """
            SELECT \(raw: ExistingRun.columns) FROM runs r WHERE r.project_id = \(projectID) AND r.run_key = \(runKey)
            """) { found = ExistingRun(row: $0) }
        return found
    }

    private func insertRun(_ db: any SQLConnection, projectID: Int64, run: RunRecord, runKey: String, hash: String,
                           commitID: Int64, receivedAt: String, tally: RunTally) throws -> Int64 {
        var runID: Int64?
        try db.insert(Self.runInsert, rows: [[
            .integer(projectID), .text(runKey), .text(hash), .integer(commitID),
            .text(run.branch), .text(run.environment),
            .text(ReportTimestamp.string(from: run.startedAt)), .text(receivedAt),
            .text(run.tool?.name), .text(run.tool?.version),
            .integer(Int64(tally.checks)), .integer(Int64(tally.leaked)),
            .integer(Int64(tally.lateRelease)), .integer(Int64(tally.errors)),
            .integer(tally.suspect ? 1 : 0),
        ]]) { runID = $0.int64("id") }
        guard let runID else { throw LeakStoreError.unavailable("the run insert returned no id") }
        return runID
    }

    /// A run's row; its id as `RowInsert.returnsAddedRows` gives it (SQLite's `RETURNING` built a
    /// temporary b-tree for it on every upload). A second run of the same key fails on the unique
    /// (project_id, run_key), as it did.
    private static let runInsert = RowInsert(
        into: """
            runs (project_id, run_key, content_hash, commit_id, branch, environment, started_at, received_at, tool_name,
                tool_version, check_count, leaked_count, late_release_count, error_count, suspect)
            """,
        columnCount: 15, returnsAddedRows: true)

    private func upsertCommit(_ db: any SQLConnection, projectID: Int64, run: RunRecord, receivedAt: String) throws -> Int64 {
        let sha = run.commit.lowercased()
        // Most uploads reach a commit stored already (a suite's shards, its other environments):
        // looked up, it needs nothing written when it has a branch and as many parents, not even
        // its links (`linkParents`). The upsert is for the rest (its RETURNING opens a temporary
        // b-tree each time). PostgreSQL, a round trip a statement, looks it up in the statement
        // that upserts it otherwise (`PostgresConnection.upsertCommit`).
        var found: (id: Int64, hasBranch: Bool, parents: Int)?
        if db.writesAlone {
            try db.query(sql: """
                SELECT c.id, c.branch IS NOT NULL AS has_branch, (SELECT count(*) FROM commit_parents p WHERE p.commit_id = c.id) AS parents
                FROM commits c WHERE c.project_id = \(projectID) AND c.sha = \(sha)
                """) { found = ($0.int64("id"), $0.int64("has_branch") != 0, $0.int("parents")) }
        }
        if let found, found.hasBranch || run.branch == nil, found.parents >= run.parents.count {
            // Its parents' ids and its children's were set when it or they were stored (one
            // writer: nothing was stored in between), and by `publish` when a commit took its sha.
            return found.id
        }
        return try db.upsertCommit(projectID: projectID, sha: sha, branch: run.branch, receivedAt: receivedAt, parents: run.parents)
    }



    /// The checks of a run (`suspect` or not) as the store keeps them (`CompactCheckWriter`),
    /// their names interned.
    private func incomingChecks(_ writer: WriteSession, _ checks: ArraySlice<CheckRecord>,
                                retainPaths: ArraySlice<String?>, suspect: Bool) throws -> [IncomingCheck] {
        // Each name is looked up once; the new ones are interned (in sorted order, so that two
        // servers storing runs with the same names lock rows in the same order) and looked up again.
        var scenarioIDs = checks.map { writer.scenarioIDs[$0.scenario] }, typeIDs = checks.map { writer.typeIDs[$0.type] }
        if scenarioIDs.contains(nil) || typeIDs.contains(nil) {
            try writer.intern(scenarios: zip(checks, scenarioIDs).lazy.filter { $0.1 == nil }.map(\.0.scenario),
                              types: zip(checks, typeIDs).lazy.filter { $0.1 == nil }.map(\.0.type))
            for (offset, check) in checks.enumerated() {
                if scenarioIDs[offset] == nil { scenarioIDs[offset] = writer.scenarioIDs[check.scenario] }
                if typeIDs[offset] == nil { typeIDs[offset] = writer.typeIDs[check.type] }
            }
        }
        return zip(checks, zip(retainPaths, zip(scenarioIDs, typeIDs))).map { check, named in
            let (retainPath, (scenarioID, typeID)) = named
            var incoming = IncomingCheck(
                scenarioID: scenarioID ?? 0, typeID: typeID ?? 0,
                outcome: check.storedOutcome, waitedMs: check.waitedMs, timeoutMs: Int64(check.timeoutMs), file: check.file,
                line: Int64(check.line), lifecycle: check.lifecycle, fingerprint: check.fingerprint,
                retainPath: retainPath, message: check.message, source: check.source?.rawValue,
                checkedAt: "", knownIssue: check.knownIssue == true,
                attempts: check.attempts.map(Int64.init), leakedAttempts: check.leakedAttempts.map(Int64.init))
            // Only a full record keeps its time: formatting it for every check cost a thirtieth of
            // a 1,000-check run's write transaction.
            if !CompactCheckWriter.isRowless(incoming, suspectRun: suspect) {
                incoming.checkedAt = ReportTimestamp.string(from: check.timestamp)
            }
            return incoming
        }
    }
}

extension RunTally {
    func receipt(runID: Int64, created: Bool) -> IngestReceipt {
        IngestReceipt(runID: runID, created: created, checkCount: checks, leakedCount: leaked,
                      lateReleaseCount: lateRelease, errorCount: errors, suspect: suspect)
    }
}
