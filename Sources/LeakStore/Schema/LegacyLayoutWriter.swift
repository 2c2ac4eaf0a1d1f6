import Foundation
import LeakReport

/// Writes uploads the way the store did before compact storage (SQLite schema 5, PostgreSQL 1):
/// a row of `checks` for every check, and `leak_states` over every run, with the ids ingest gave
/// them. The upgrade tests and `leakhistory-bench storage` fill a database with it, then open it
/// with this build, which upgrades it in place.
package final class LegacyLayoutWriter {
    package let db: any SQLConnection
    /// Seconds spent in `write`.
    package private(set) var seconds = 0.0
    private var commitIDs: [String: Int64] = [:]
    private var names: [String: [String: Int64]] = ["scenarios": [:], "types": [:]]
    private var runID: Int64 = 0

    /// Creates the schema as it was before compact storage on `db` and the project.
    package init(_ db: any SQLConnection, postgres: Bool, project: String) throws {
        self.db = db
        let migrations = postgres ? Migration.postgres.filter { $0.version < 2 } : Migration.all.filter { $0.version < 6 }
        try Migrator(migrations: migrations, location: "legacy").migrate(db) { body in try body() }
        try db.run("INSERT INTO projects (id, name, created_at) VALUES (1, ?, '2026-01-01T00:00:00.000Z')", [.text(project)])
    }

    /// A new SQLite file in WAL mode, as the server opened it.
    package static func sqlite(path: String, project: String) throws -> LegacyLayoutWriter {
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        _ = try connection.scalarText("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = NORMAL")
        return try LegacyLayoutWriter(connection, postgres: false, project: project)
    }

    /// Stores the runs, each in one transaction, every check a row.
    package func write(_ runs: [RunRecord]) throws {
        let start = ContinuousClock.now
        for run in runs {
            try db.execute("BEGIN")
            try write(run)
            try db.execute("COMMIT")
        }
        let elapsed = ContinuousClock.now - start
        seconds += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private func write(_ run: RunRecord) throws {
        let tally = RunTally(run.checks)
        if commitIDs[run.commit] == nil {
            let id = Int64(commitIDs.count + 1)
            commitIDs[run.commit] = id
            try db.run("INSERT INTO commits (id, project_id, sha, branch, first_seen) VALUES (?, 1, ?, ?, '2026-01-01T00:00:00.000Z')",
                       [.integer(id), .text(run.commit), .text(run.branch)])
            for (position, parent) in run.parents.enumerated() {
                try db.run("INSERT INTO commit_parents (commit_id, position, parent_sha) VALUES (?, ?, ?)",
                           [.integer(id), .integer(Int64(position)), .text(parent)])
            }
        }
        let commitID = commitIDs[run.commit]!
        for table in ["scenarios", "types"] {
            for name in Set(run.checks.map { table == "types" ? $0.type : $0.scenario }).sorted() where names[table]?[name] == nil {
                let id = Int64((names[table]?.count ?? 0) + 1)
                names[table]?[name] = id
                try db.run("INSERT INTO \(table) (id, name) VALUES (?, ?)", [.integer(id), .text(name)])
            }
        }
        runID += 1
        try db.run("""
            INSERT INTO runs (id, project_id, run_key, content_hash, commit_id, branch, environment, started_at, received_at,
                tool_name, tool_version, check_count, leaked_count, late_release_count, error_count, suspect)
            VALUES (?, 1, ?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z', NULL, NULL, ?, ?, ?, ?, ?)
            """, [.integer(runID), .text(run.runKey), .text(run.contentHash()), .integer(commitID), .text(run.branch),
                  .text(run.environment), .text(ReportTimestamp.string(from: run.startedAt)), .integer(Int64(tally.checks)),
                  .integer(Int64(tally.leaked)), .integer(Int64(tally.lateRelease)), .integer(Int64(tally.errors)),
                  .integer(tally.suspect ? 1 : 0)])
        var states: [[Int64]: [Int64]] = [:]
        for check in run.checks {
            let scenarioID = names["scenarios"]![check.scenario]!, typeID = names["types"]![check.type]!
            try db.run("""
                INSERT INTO checks (run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, file, line, lifecycle,
                    fingerprint, retain_path, message, source, checked_at, known_issue)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.integer(runID), .integer(scenarioID), .integer(typeID), .text(check.outcome.rawValue),
                      .real(check.waitedMs), .integer(Int64(check.timeoutMs)), .text(check.file), .integer(Int64(check.line)),
                      .text(check.lifecycle), .text(check.fingerprint), .text(check.retainPath.map(RetainPathJSON.text)),
                      .text(check.message), .text(check.source?.rawValue), .text(ReportTimestamp.string(from: check.timestamp)),
                      check.knownIssue == true && check.outcome == .leaked ? .integer(1) : .null])
            let counts: [Int64] = [1, check.outcome == .leaked ? 1 : 0, check.outcome == .lateRelease ? 1 : 0,
                                   check.outcome == .error ? 1 : 0]
            states[[scenarioID, typeID]] = zip(states[[scenarioID, typeID]] ?? [0, 0, 0, 0], counts).map { $0 + $1 }
        }
        for (key, counts) in states.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            try db.run("""
                INSERT INTO leak_states (commit_id, environment, scenario_id, type_id, checked_count, leaked_count,
                    late_release_count, error_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (commit_id, environment, scenario_id, type_id) DO UPDATE SET
                    checked_count = leak_states.checked_count + excluded.checked_count,
                    leaked_count = leak_states.leaked_count + excluded.leaked_count,
                    late_release_count = leak_states.late_release_count + excluded.late_release_count,
                    error_count = leak_states.error_count + excluded.error_count
                """, [.integer(commitID), .text(run.environment), .integer(key[0]), .integer(key[1])] + counts.map(SQLValue.integer))
        }
    }
}
