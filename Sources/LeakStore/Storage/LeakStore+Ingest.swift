import Foundation
import LeakReport

extension LeakStore {
    /// Stores one run and its checks in one transaction, and updates the per-commit leak states.
    ///
    /// The same `runKey` with the same content returns the first run's receipt with
    /// `created == false` and adds nothing.
    /// - Parameter contentHash: a digest of the run's canonical form; `RunRecord.contentHash` by default.
    /// - Throws: `LeakStoreError.projectNotFound`, `.runKeyConflict`, or `SQLiteError`.
    public func ingest(_ run: RunRecord, contentHash: String? = nil) throws -> IngestReceipt {
        let hash = contentHash ?? run.contentHash()
        let receivedAt = ReportTimestamp.string(from: Date())
        let tally = RunTally(run.checks)
        let retainPaths = run.checks.map { $0.retainPath.map(RetainPathJSON.text) }
        return try write { writer in
            try writer.transaction {
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
                try db.run("""
                    INSERT INTO runs (project_id, run_key, content_hash, commit_id, branch, environment,
                        started_at, received_at, tool_name, tool_version, check_count, leaked_count,
                        late_release_count, error_count, suspect)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [
                        .integer(projectID), .text(run.runKey), .text(hash), .integer(commitID),
                        run.branch.map(SQLiteValue.text) ?? .null, .text(run.environment),
                        .text(ReportTimestamp.string(from: run.startedAt)), .text(receivedAt),
                        run.tool.map { .text($0.name) } ?? .null, run.tool.map { .text($0.version) } ?? .null,
                        .integer(Int64(tally.checks)), .integer(Int64(tally.leaked)),
                        .integer(Int64(tally.lateRelease)), .integer(Int64(tally.errors)),
                        .integer(tally.suspect ? 1 : 0),
                    ])
                let runID = db.lastInsertRowID
                try insertChecks(writer, runID: runID, commitID: commitID, run: run, retainPaths: retainPaths)
                return IngestReceipt(
                    runID: runID, created: true, checkCount: tally.checks, leakedCount: tally.leaked,
                    lateReleaseCount: tally.lateRelease, errorCount: tally.errors, suspect: tally.suspect)
            }
        }
    }

    private func existingRun(_ db: SQLiteConnection, projectID: Int64, runKey: String) throws
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

    private func upsertCommit(_ db: SQLiteConnection, projectID: Int64, run: RunRecord, receivedAt: String) throws -> Int64 {
        // RETURNING on an upsert gives the id whether the row is new or was already there.
        guard let commitID = try db.scalarInt("""
            INSERT INTO commits (project_id, sha, branch, first_seen) VALUES (?, ?, ?, ?)
            ON CONFLICT (project_id, sha) DO UPDATE SET branch = coalesce(commits.branch, excluded.branch)
            RETURNING id
            """, [.integer(projectID), .text(run.commit.lowercased()),
                  run.branch.map(SQLiteValue.text) ?? .null, .text(receivedAt)])
        else {
            throw SQLiteError(code: 1, message: "the commit upsert returned no id", sql: nil)
        }
        for (position, parent) in run.parents.enumerated() {
            try db.run("""
                INSERT INTO commit_parents (commit_id, position, parent_sha) VALUES (?, ?, ?)
                ON CONFLICT DO NOTHING
                """, [.integer(commitID), .integer(Int64(position)), .text(parent.lowercased())])
        }
        return commitID
    }

    private func insertChecks(_ writer: WriterConnection, runID: Int64, commitID: Int64, run: RunRecord,
                              retainPaths: [String?]) throws {
        let db = writer.connection
        var states: [LeakStateKey: LeakStateCounts] = [:]
        let insert = try db.statement("""
            INSERT INTO checks (run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, file, line,
                lifecycle, fingerprint, retain_path, message, source, checked_at, known_issue)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (index, check) in run.checks.enumerated() {
            let scenarioID = try intern(check.scenario, table: "scenarios", cache: &writer.scenarioIDs, db: db)
            let typeID = try intern(check.type, table: "types", cache: &writer.typeIDs, db: db)
            insert.reset()
            try insert.bind(runID, at: 1)
            try insert.bind(scenarioID, at: 2)
            try insert.bind(typeID, at: 3)
            try insert.bind(check.outcome.rawValue, at: 4)
            try insert.bind(check.waitedMs, at: 5)
            try insert.bind(check.timeoutMs, at: 6)
            try insert.bind(check.file, at: 7)
            try insert.bind(check.line, at: 8)
            try insert.bind(check.lifecycle, at: 9)
            try insert.bind(check.fingerprint, at: 10)
            try insert.bind(retainPaths[index], at: 11)
            try insert.bind(check.message, at: 12)
            try insert.bind(check.source?.rawValue, at: 13)
            try insert.bind(ReportTimestamp.string(from: check.timestamp), at: 14)
            try insert.bind(check.knownIssue == true && check.outcome == .leaked ? 1 : nil, at: 15)
            try insert.step()
            states[LeakStateKey(scenarioID: scenarioID, typeID: typeID), default: LeakStateCounts()].add(check.outcome)
        }
        insert.reset()
        // One prepared statement for every key of the run: `run(_:_:)` would look it up by its
        // SQL text (hashing the text) and box its values in an array, once per key.
        let upsert = try db.statement("""
            INSERT INTO leak_states (commit_id, environment, scenario_id, type_id, checked_count,
                leaked_count, late_release_count, error_count)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (commit_id, environment, scenario_id, type_id) DO UPDATE SET
                checked_count = checked_count + excluded.checked_count,
                leaked_count = leaked_count + excluded.leaked_count,
                late_release_count = late_release_count + excluded.late_release_count,
                error_count = error_count + excluded.error_count
            """)
        defer { upsert.reset() }
        for (key, counts) in states {
            upsert.reset()
            try upsert.bind(commitID, at: 1)
            try upsert.bind(run.environment, at: 2)
            try upsert.bind(key.scenarioID, at: 3)
            try upsert.bind(key.typeID, at: 4)
            try upsert.bind(counts.checked, at: 5)
            try upsert.bind(counts.leaked, at: 6)
            try upsert.bind(counts.lateRelease, at: 7)
            try upsert.bind(counts.errors, at: 8)
            try upsert.step()
        }
    }

    /// The id of `name` in `table` (`types` or `scenarios`), inserting it the first time.
    private func intern(_ name: String, table: StaticString, cache: inout [String: Int64], db: SQLiteConnection) throws -> Int64 {
        if let id = cache[name] { return id }
        let id: Int64
        if let existing = try db.scalarInt("SELECT id FROM \(table) WHERE name = ?", [.text(name)]) {
            id = existing
        } else {
            try db.run("INSERT INTO \(table) (name) VALUES (?)", [.text(name)])
            id = db.lastInsertRowID
        }
        cache[name] = id
        return id
    }
}

private struct LeakStateKey: Hashable {
    var scenarioID: Int64
    var typeID: Int64
}

private struct LeakStateCounts {
    var checked: Int64 = 0
    var leaked: Int64 = 0
    var lateRelease: Int64 = 0
    var errors: Int64 = 0

    mutating func add(_ outcome: CheckOutcome) {
        checked += 1
        switch outcome {
        case .leaked: leaked += 1
        case .lateRelease: lateRelease += 1
        case .error: errors += 1
        case .deallocated: break
        }
    }
}
