import Foundation
import LeakReport
import LeakStore

/// The floor under ingest: the same rows (commit, its parents, run, checks) inserted through one
/// prepared statement each, one transaction a run, with the same `synchronous` setting — no
/// HTTP, no JSON, no validation, no leak-state bookkeeping. Every check is a row of
/// `raw_checks`, the plain one-row-per-check table the store had before compact storage.
final class RawInsertBaseline: RawBaseline {
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

    var engine: String { "SQLite" }

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

/// The same floor on PostgreSQL (`LEAKHISTORY_BENCH_ENGINE=postgres`): the same rows into the
/// same schema, one transaction a run, each run's checks in one statement (`unnest` of a column
/// array each, `PostgresConnection.insert`: PostgreSQL's fastest way short of `COPY`), through a
/// connection of its own to the same server as the store's.
final class RawPostgresInsertBaseline: RawBaseline {
    private let connection: PostgresConnection
    private var typeIDs: [String: Int64] = [:]
    private var scenarioIDs: [String: Int64] = [:]
    private let timestamp = ReportTimestamp.string(from: Date())
    private static let checksInsert = RowInsert(
        into: "raw_checks (run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, file, line, lifecycle, "
            + "fingerprint, retain_path, message, source, checked_at)", columnCount: 14)

    /// `url`: a schema of its own (`BenchDatabase`); its tables are made by `LeakStore`'s migrations.
    init(url: String) throws {
        let store = try LeakStore(database: url)
        _ = try store.createProject("bench")
        connection = try PostgresConnection(url: url)
        try connection.execute("""
            CREATE TABLE raw_checks (
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, run_id BIGINT NOT NULL REFERENCES runs(id),
                scenario_id BIGINT NOT NULL, type_id BIGINT NOT NULL, outcome TEXT NOT NULL, waited_ms DOUBLE PRECISION NOT NULL,
                timeout_ms INTEGER NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL, lifecycle TEXT NOT NULL, fingerprint TEXT,
                retain_path TEXT, message TEXT, source TEXT, checked_at TEXT NOT NULL);
            CREATE INDEX raw_checks_by_run ON raw_checks(run_id);
            """)
    }

    var engine: String { "PostgreSQL" }

    func insert(_ runs: [RunRecord]) throws -> Double {
        // Names interned beforehand, outside the timing, as the SQLite baseline does.
        let checks = runs.flatMap(\.checks)
        let scenarios = Set(checks.map(\.scenario)).filter { scenarioIDs[$0] == nil }.sorted()
        scenarioIDs.merge(try connection.intern(scenarios, in: "scenarios")) { old, _ in old }
        let types = Set(checks.map(\.type)).filter { typeIDs[$0] == nil }.sorted()
        typeIDs.merge(try connection.intern(types, in: "types")) { old, _ in old }
        let start = ContinuousClock.now
        for run in runs {
            try connection.execute("BEGIN")
            var commitID: Int64 = 0
            try connection.query("""
                INSERT INTO commits (project_id, sha, branch, first_seen) VALUES (1, ?, ?, ?)
                ON CONFLICT (project_id, sha) DO UPDATE SET branch = excluded.branch RETURNING id
                """, [.text(run.commit), .text(run.branch ?? ""), .text(timestamp)]) { commitID = $0.int64(at: 0) }
            for (position, parent) in run.parents.enumerated() {
                try connection.run("INSERT INTO commit_parents (commit_id, position, parent_sha) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                                   [.integer(commitID), .integer(Int64(position)), .text(parent)])
            }
            var runID: Int64 = 0
            try connection.query("""
                INSERT INTO runs (project_id, run_key, content_hash, commit_id, branch, environment, started_at,
                    received_at, tool_name, tool_version, check_count, leaked_count, late_release_count, error_count, suspect)
                VALUES (1, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0) RETURNING id
                """, [.text(run.runKey), .integer(commitID), .text(run.branch ?? ""), .text(run.environment), .text(timestamp),
                      .text(timestamp), .text(run.tool?.name ?? ""), .text(run.tool?.version ?? ""),
                      .integer(Int64(run.checks.count))]) { runID = $0.int64(at: 0) }
            try connection.insert(Self.checksInsert, rows: run.checks.map { check in
                [.integer(runID), .integer(scenarioIDs[check.scenario] ?? 0), .integer(typeIDs[check.type] ?? 0),
                 .text(check.outcome.rawValue), .real(check.waitedMs), .integer(Int64(check.timeoutMs)), .text(check.file),
                 .integer(Int64(check.line)), .text(check.lifecycle), .text(check.fingerprint), .null, .text(check.message),
                 .text(check.source?.rawValue), .text(ReportTimestamp.string(from: check.timestamp))]
            })
            try connection.execute("COMMIT")
        }
        return (ContinuousClock.now - start).nanoseconds / 1e9
    }
}

/// The raw insert of the same rows that the ingest figures are read against.
protocol RawBaseline {
    /// "SQLite" or "PostgreSQL".
    var engine: String { get }
    /// Inserts every run, a transaction each; returns the seconds the inserts took.
    func insert(_ runs: [RunRecord]) throws -> Double
}
