import Foundation
import LeakReport
import LeakStore

/// The floor under ingest: the same rows (commit, its parents, run, checks) inserted through one
/// prepared statement each, one transaction a run, with the same `synchronous` setting — no
/// HTTP, no JSON, no validation, no leak-state bookkeeping. Every check is a row of
/// `raw_checks`, the plain one-row-per-check table the store had before compact storage.
final class RawInsertBaseline {
    private let connection: SQLiteConnection
    private var typeIDs: [String: Int64] = [:]
    private var scenarioIDs: [String: Int64] = [:]
    private let timestamp = ReportTimestamp.string(from: Date())

    /// Creates the schema through `LeakStore` (its migrations), then writes through a
    /// connection of its own.
    init(path: String) throws {
        let store = try LeakStore(path: path)
        _ = try store.createProject("bench")
        connection = try SQLiteConnection(path: path, mode: .readWrite)
        try connection.execute("PRAGMA synchronous = NORMAL")
        try connection.execute("""
            CREATE TABLE raw_checks (
                id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), scenario_id INTEGER NOT NULL,
                type_id INTEGER NOT NULL, outcome TEXT NOT NULL, waited_ms REAL NOT NULL, timeout_ms INTEGER NOT NULL,
                file TEXT NOT NULL, line INTEGER NOT NULL, lifecycle TEXT NOT NULL, fingerprint TEXT, retain_path TEXT,
                message TEXT, source TEXT, checked_at TEXT NOT NULL);
            CREATE INDEX raw_checks_by_run ON raw_checks(run_id);
            """)
    }

    /// Inserts every run; returns the seconds the inserts took. Type and scenario names are
    /// interned beforehand, outside the timing.
    func insert(_ runs: [RunRecord]) throws -> Double {
        let prepared = try runs.map { run in
            try run.checks.map { check in
                (try intern(check.scenario, table: "scenarios", cache: &scenarioIDs),
                 try intern(check.type, table: "types", cache: &typeIDs))
            }
        }
        let commitSQL = """
            INSERT INTO commits (project_id, sha, branch, first_seen) VALUES (1, ?, ?, ?)
            ON CONFLICT (project_id, sha) DO UPDATE SET branch = excluded.branch RETURNING id
            """
        let parentSQL = "INSERT INTO commit_parents (commit_id, position, parent_sha) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
        let runSQL = """
            INSERT INTO runs (project_id, run_key, content_hash, commit_id, branch, environment, started_at,
                received_at, tool_name, tool_version, check_count, leaked_count, late_release_count, error_count, suspect)
            VALUES (1, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0)
            """
        let checkSQL = """
            INSERT INTO raw_checks (run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, file, line,
                lifecycle, fingerprint, retain_path, message, source, checked_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        let start = ContinuousClock.now
        for (run, ids) in zip(runs, prepared) {
            try connection.transaction {
                // `statement(_:)` hands back the cached statement, reset.
                let commit = try connection.statement(commitSQL)
                try commit.bind([.text(run.commit), .text(run.branch ?? ""), .text(timestamp)])
                _ = try commit.step()
                let commitID = commit.int64(at: 0)
                while try commit.step() {}
                for (position, parent) in run.parents.enumerated() {
                    let parentRow = try connection.statement(parentSQL)
                    try parentRow.bind([.integer(commitID), .integer(Int64(position)), .text(parent)])
                    _ = try parentRow.step()
                }
                let runRow = try connection.statement(runSQL)
                try runRow.bind([.text(run.runKey), .integer(commitID), .text(run.branch ?? ""), .text(run.environment),
                                 .text(timestamp), .text(timestamp), .text(run.tool?.name ?? ""),
                                 .text(run.tool?.version ?? ""), .integer(Int64(run.checks.count))])
                _ = try runRow.step()
                let runID = connection.lastInsertRowID
                for (check, (scenarioID, typeID)) in zip(run.checks, ids) {
                    let checkRow = try connection.statement(checkSQL)
                    try checkRow.bind(runID, at: 1)
                    try checkRow.bind(scenarioID, at: 2)
                    try checkRow.bind(typeID, at: 3)
                    try checkRow.bind(check.outcome.rawValue, at: 4)
                    try checkRow.bind(check.waitedMs, at: 5)
                    try checkRow.bind(check.timeoutMs, at: 6)
                    try checkRow.bind(check.file, at: 7)
                    try checkRow.bind(check.line, at: 8)
                    try checkRow.bind(check.lifecycle, at: 9)
                    try checkRow.bind(check.fingerprint, at: 10)
                    try checkRow.bind(nil as String?, at: 11)
                    try checkRow.bind(check.message, at: 12)
                    try checkRow.bind(check.source?.rawValue, at: 13)
                    try checkRow.bind(ReportTimestamp.string(from: check.timestamp), at: 14)
                    _ = try checkRow.step()
                }
            }
        }
        return (ContinuousClock.now - start).nanoseconds / 1e9
    }

    private func intern(_ name: String, table: String, cache: inout [String: Int64]) throws -> Int64 {
        if let id = cache[name] { return id }
        try connection.run("INSERT INTO \(table) (name) VALUES (?) ON CONFLICT (name) DO NOTHING", [.text(name)])
        let id = try connection.scalarInt("SELECT id FROM \(table) WHERE name = ?", [.text(name)]) ?? 0
        cache[name] = id
        return id
    }
}
