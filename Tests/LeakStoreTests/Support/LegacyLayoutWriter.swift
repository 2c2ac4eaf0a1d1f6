import Foundation
import LeakReport
@testable import LeakStore

/// Writes uploads the way the store did before compact storage (schema 5 on SQLite, 1 on
/// PostgreSQL): a row of `checks` for every check, and `leak_states` over every run, with the
/// ids ingest gave them. The upgrade tests fill a database with it and open it with this build.
struct LegacyLayoutWriter {
    let db: any SQLConnection
    private var commitIDs: [String: Int64] = [:]
    private var names: [String: [String: Int64]] = ["scenarios": [:], "types": [:]]
    private var states: [String: [Int64]] = [:]
    private var runID: Int64 = 0

    /// Creates the schema as it was before compact storage on `db` (migrations up to the last
    /// one before it) and the project.
    init(_ db: any SQLConnection, engine: TestEngine, project: String) throws {
        self.db = db
        let migrations = engine == .sqlite ? Migration.all.filter { $0.version < 6 } : Migration.postgres.filter { $0.version < 2 }
        try Migrator(migrations: migrations, location: "legacy").migrate(db) { body in try body() }
        try db.run("INSERT INTO projects (id, name, created_at) VALUES (1, ?, '2026-01-01T00:00:00.000Z')", [.text(project)])
    }

    /// Stores one run with every check a row; suspect as the run tally says.
    mutating func write(_ run: RunRecord) throws {
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
            let wanted = Set(run.checks.map { table == "types" ? $0.type : $0.scenario }).sorted()
            for name in wanted where names[table]?[name] == nil {
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
            let key = "\(commitID) \(run.environment) \(scenarioID) \(typeID)"
            let counts: [Int64] = [1, check.outcome == .leaked ? 1 : 0, check.outcome == .lateRelease ? 1 : 0,
                                   check.outcome == .error ? 1 : 0]
            if let existing = states[key] {
                states[key] = zip(existing, counts).map { $0 + $1 }
                try db.run("""
                    UPDATE leak_states SET checked_count = ?, leaked_count = ?, late_release_count = ?, error_count = ?
                    WHERE commit_id = ? AND environment = ? AND scenario_id = ? AND type_id = ?
                    """, states[key]!.map(SQLValue.integer) + [.integer(commitID), .text(run.environment), .integer(scenarioID), .integer(typeID)])
            } else {
                states[key] = counts
                try db.run("""
                    INSERT INTO leak_states (commit_id, environment, scenario_id, type_id, checked_count, leaked_count,
                        late_release_count, error_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(commitID), .text(run.environment), .integer(scenarioID), .integer(typeID)] + counts.map(SQLValue.integer))
            }
        }
    }
}
