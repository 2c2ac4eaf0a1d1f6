import Foundation
@testable import LeakStore
import Testing

/// The engines the store suites run against: SQLite always; PostgreSQL when
/// `LEAKHISTORY_TEST_POSTGRES` names a server to use (`.ci/postgres-test-cluster start` prints
/// one; `make test` starts it). Without it the PostgreSQL cases are skipped with a printed
/// reason — except under CI (`CI` or `LEAKHISTORY_TEST_POSTGRES_REQUIRED` set, as `.ci/run`
/// does), where they run and fail, so CI can never skip them.
enum TestEngine: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    static let postgresVariable = "LEAKHISTORY_TEST_POSTGRES"

    /// The engines to test in this environment.
    static let all: [TestEngine] = {
        let environment = ProcessInfo.processInfo.environment
        if environment[postgresVariable] != nil || environment["CI"] != nil
            || environment["LEAKHISTORY_TEST_POSTGRES_REQUIRED"] != nil { return [.sqlite, .postgres] }
        print("note: PostgreSQL cases skipped: \(postgresVariable) is not set. Run `make test`, or "
              + "`export \(postgresVariable)=$(.ci/postgres-test-cluster start)`, to include them.")
        return [.sqlite]
    }()

    /// Several servers only make sense on PostgreSQL.
    static var postgresOnly: [TestEngine] { all.filter { $0 == .postgres } }

    var testDescription: String { rawValue }
}

/// A fresh, empty database of one engine, deleted when released: a SQLite file in its own temp
/// folder, or a PostgreSQL schema of its own (so tests run in parallel on one cluster).
final class TestDatabase: @unchecked Sendable {
    let engine: TestEngine
    /// What `--database` takes: a file path, or a URL whose `search_path` is the test's schema.
    let location: String
    private let cleanup: () -> Void
    /// PostgreSQL with `ownRole`: takes the database away from this test's servers and gives it back.
    private(set) var cutOff: () throws -> Void = {}
    private(set) var restore: () throws -> Void = {}

    /// - Parameter ownRole: PostgreSQL only: the servers log in as a role of this test's own,
    ///   so that `cutOff` can make the database unreachable for them (as a restart or an
    ///   outage does: connections dropped, new ones refused) without touching other tests.
    init(_ engine: TestEngine, ownRole: Bool = false) throws {
        self.engine = engine
        switch engine {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("leakstore-test-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            location = directory.appendingPathComponent("leaks.sqlite").path
            cleanup = { try? FileManager.default.removeItem(at: directory) }
        case .postgres:
            guard let base = ProcessInfo.processInfo.environment[TestEngine.postgresVariable] else {
                throw TestDatabaseError(
                    "this is CI, and \(TestEngine.postgresVariable) is not set: CI must run the PostgreSQL cases. "
                        + "Start a cluster with `export \(TestEngine.postgresVariable)=$(.ci/postgres-test-cluster start)`")
            }
            let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
            let admin = try PostgresConnection(url: base)
            var url = base
            if ownRole, var parts = URLComponents(string: base) {
                try admin.execute("CREATE ROLE \(schema) LOGIN; GRANT \(schema) TO CURRENT_USER")
                try admin.execute("CREATE SCHEMA \(schema) AUTHORIZATION \(schema)")
                parts.user = schema
                url = parts.string ?? base
                let terminate = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(schema)'"
                cutOff = { try admin.execute("ALTER ROLE \(schema) NOLOGIN; \(terminate)") }
                restore = { try admin.execute("ALTER ROLE \(schema) LOGIN") }
                cleanup = {
                    try? admin.execute("ALTER ROLE \(schema) NOLOGIN; \(terminate)")
                    try? admin.execute("DROP SCHEMA \(schema) CASCADE; DROP ROLE \(schema)")
                }
            } else {
                try admin.execute("CREATE SCHEMA \(schema)")
                cleanup = { try? admin.execute("DROP SCHEMA \(schema) CASCADE") }
            }
            let separator = url.contains("?") ? "&" : "?"
            location = url + separator + "options=-csearch_path%3D\(schema)"
        }
    }

    deinit { cleanup() }

    /// Opens (creating and migrating) the store.
    func open(_ options: StoreOptions = StoreOptions(), progress: UpgradeProgress.Observer? = nil) throws -> LeakStore {
        try LeakStore(database: location, options: options, progress: progress)
    }
}

struct TestDatabaseError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Values gathered from several threads.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var gathered: [Value] = []

    func append(_ value: Value) { lock.withLock { gathered.append(value) } }
    var values: [Value] { lock.withLock { gathered } }
}
