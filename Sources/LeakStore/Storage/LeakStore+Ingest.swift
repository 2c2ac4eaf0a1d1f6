import Foundation
import LeakReport

extension LeakStore {
    /// Stores one run and its checks in one transaction, and updates the per-commit leak states.
    ///
    /// The same `runKey` with the same content returns the first run's receipt with
    /// `created == false` and adds nothing.
    /// - Parameter contentHash: a digest of the run's canonical form; `RunRecord.contentHash` by default.
    /// - Throws: `LeakStoreError.projectNotFound`, `.runKeyConflict`, or `SQLiteError`.
    public func ingest(_ run: RunRecord, contentHash: String?) throws -> IngestReceipt {
        let hash = contentHash ?? run.contentHash()
        let receivedAt = ReportTimestamp.string(from: Date())
        let tally = RunTally(run.checks)
        let retainPaths = run.checks.map { $0.retainPath.map(RetainPathJSON.text) }
        // Two servers racing on one runKey: the unique (project_id, run_key) makes the loser's
        // insert fail, the engine runs this again, and the second pass finds the winner's run.
        return try write { writer in
            let db = writer.connection
            guard let projectID = try db.scalarInt("SELECT id FROM projects WHERE name = ?", [.text(run.project)]) else {
                throw LeakStoreError.projectNotFound(run.project)
            }
            if let existing = try existingRun(db, projectID: projectID, runKey: run.runKey) {
                guard existing.hash == hash else {
                    throw LeakStoreError.runKeyConflict(project: run.project, runKey: run.runKey, existingRunID: existing.receipt.runID)
                }
                return existing.receipt
            }
            let commitID = try upsertCommit(db, projectID: projectID, run: run, receivedAt: receivedAt)
            guard let runID = try db.scalarInt("""
                INSERT INTO runs (project_id, run_key, content_hash, commit_id, branch, environment,
                    started_at, received_at, tool_name, tool_version, check_count, leaked_count,
                    late_release_count, error_count, suspect)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, [
                    .integer(projectID), .text(run.runKey), .text(hash), .integer(commitID),
                    .text(run.branch), .text(run.environment),
                    .text(ReportTimestamp.string(from: run.startedAt)), .text(receivedAt),
                    .text(run.tool?.name), .text(run.tool?.version),
                    .integer(Int64(tally.checks)), .integer(Int64(tally.leaked)),
                    .integer(Int64(tally.lateRelease)), .integer(Int64(tally.errors)),
                    .integer(tally.suspect ? 1 : 0),
                ])
            else { throw LeakStoreError.unavailable("the run insert returned no id") }
            try insertChecks(writer, runID: runID, commitID: commitID, run: run, suspect: tally.suspect, retainPaths: retainPaths)
            return IngestReceipt(
                runID: runID, created: true, checkCount: tally.checks, leakedCount: tally.leaked,
                lateReleaseCount: tally.lateRelease, errorCount: tally.errors, suspect: tally.suspect)
        }
    }

    private func existingRun(_ db: any SQLConnection, projectID: Int64, runKey: String) throws
        -> (hash: String, receipt: IngestReceipt)?
    {
        var found: (String, IngestReceipt)?
        try db.query("""
            SELECT id, content_hash, check_count, leaked_count, late_release_count, error_count, suspect
            FROM runs WHERE project_id = ? AND run_key = ?
            """, [.integer(projectID), .text(runKey)]) { row in
            found = (row.string(at: 1) ?? "", IngestReceipt(
                runID: row.int64(at: 0), created: false, checkCount: row.int(at: 2), leakedCount: row.int(at: 3),
                lateReleaseCount: row.int(at: 4), errorCount: row.int(at: 5), suspect: row.int(at: 6) != 0))
        }
        return found
    }

    private func upsertCommit(_ db: any SQLConnection, projectID: Int64, run: RunRecord, receivedAt: String) throws -> Int64 {
        // RETURNING on an upsert gives the id whether the row is new or was already there.
        guard let commitID = try db.scalarInt("""
            INSERT INTO commits (project_id, sha, branch, first_seen) VALUES (?, ?, ?, ?)
            ON CONFLICT (project_id, sha) DO UPDATE SET branch = coalesce(commits.branch, excluded.branch)
            RETURNING id
            """, [.integer(projectID), .text(run.commit.lowercased()), .text(run.branch), .text(receivedAt)])
        else {
            throw LeakStoreError.unavailable("the commit upsert returned no id")
        }
        try db.insert(Self.parentInsert, rows: run.parents.enumerated().map { position, parent in
            [.integer(commitID), .integer(Int64(position)), .text(parent.lowercased())]
        })
        return commitID
    }

    private static let parentInsert = RowInsert(
        into: "commit_parents (commit_id, position, parent_sha)", columnCount: 3, suffix: "ON CONFLICT DO NOTHING")

    /// Stores the run's checks in the compact layout (`CompactCheckWriter`).
    private func insertChecks(_ writer: WriteSession, runID: Int64, commitID: Int64, run: RunRecord, suspect: Bool,
                              retainPaths: [String?]) throws {
        // Names are interned in sorted order, so that two servers storing runs with the same
        // names lock rows in the same order.
        try writer.intern(scenarios: run.checks.map(\.scenario), types: run.checks.map(\.type))
        let incoming = run.checks.enumerated().map { index, check in
            IncomingCheck(
                scenarioID: writer.scenarioIDs[check.scenario] ?? 0, typeID: writer.typeIDs[check.type] ?? 0,
                outcome: check.outcome, waitedMs: check.waitedMs, timeoutMs: Int64(check.timeoutMs), file: check.file,
                line: Int64(check.line), lifecycle: check.lifecycle, fingerprint: check.fingerprint,
                retainPath: retainPaths[index], message: check.message, source: check.source?.rawValue,
                checkedAt: ReportTimestamp.string(from: check.timestamp), knownIssue: check.knownIssue == true)
        }
        try CompactCheckWriter.live.store(incoming, runID: runID, commitID: commitID, environment: run.environment,
                                          suspect: suspect, writer: writer)
    }
}
