import Foundation
import LeakReport
import LeakServer
import LeakStore
import LoopbackClient

/// `leakhistory-bench engines`: the same uploads and diff queries over HTTP against SQLite
/// (one server), PostgreSQL with one server and PostgreSQL with three servers on one database,
/// in the same run; and `migrate` of a SQLite database into PostgreSQL. Needs a PostgreSQL URL
/// in `LEAKHISTORY_BENCH_POSTGRES` (or `LEAKHISTORY_TEST_POSTGRES`); each setup gets a schema of
/// its own, dropped afterwards.
enum EngineBenchmark {
    struct Setup {
        var name: String
        var postgres: Bool
        var servers: Int
    }

    static let setups = [Setup(name: "SQLite, 1 server", postgres: false, servers: 1),
                         Setup(name: "PostgreSQL, 1 server", postgres: true, servers: 1),
                         Setup(name: "PostgreSQL, 3 servers", postgres: true, servers: 3)]

    struct Figures {
        var checksPerSecond: Double
        var uploadsPerSecond: Double
        var diffsPerSecond: Double
    }

    static func run(quick: Bool) throws -> BenchmarkTable? {
        guard let postgres = BenchDatabase.postgresURL else {
            print("engines: skipped — set LEAKHISTORY_BENCH_POSTGRES to a PostgreSQL URL "
                  + "(`.ci/postgres-test-cluster start` prints one)\n")
            return nil
        }
        let largeRuns = quick ? 8 : 60, smallRuns = quick ? 100 : 1_500, diffs = quick ? 100 : 1_000
        var figures: [Figures] = []
        for setup in setups {
            let database = try BenchDatabase(postgres: setup.postgres ? postgres : nil)
            defer { database.drop() }
            figures.append(try measure(setup, location: database.location, largeRuns: largeRuns, smallRuns: smallRuns, diffs: diffs))
        }
        var table = BenchmarkTable(title: "engines — \(IngestBenchmark.clients) client threads over loopback, uploads "
            + "(\(largeRuns) 1,000-check runs, \(smallRuns) 10-check runs) then \(diffs) diffs, spread over the servers; "
            + "PostgreSQL on this machine")
        let sqlite = figures[0]
        for (setup, figure) in zip(setups, figures).dropFirst() {
            let ratio = figure.checksPerSecond / sqlite.checksPerSecond
            table.rows.append(.init(
                figure: "checks/s, \(setup.name)", value: "\(Int(figure.checksPerSecond)) checks/s",
                baseline: "\(Int(sqlite.checksPerSecond)) checks/s SQLite", ratio: "\(Int((ratio * 100).rounded()))%",
                target: setup.servers == 1 ? "≥ 50% of SQLite" : "", met: setup.servers == 1 ? ratio >= 0.5 : nil))
            table.rows.append(.init(
                figure: "uploads/s, \(setup.name)", value: "\(Int(figure.uploadsPerSecond)) uploads/s",
                baseline: "\(Int(sqlite.uploadsPerSecond)) uploads/s SQLite",
                ratio: "\(Int((figure.uploadsPerSecond / sqlite.uploadsPerSecond * 100).rounded()))%", target: "", met: nil))
            table.rows.append(.init(
                figure: "diffs/s, \(setup.name)", value: "\(Int(figure.diffsPerSecond)) diffs/s",
                baseline: "\(Int(sqlite.diffsPerSecond)) diffs/s SQLite",
                ratio: "\(Int((figure.diffsPerSecond / sqlite.diffsPerSecond * 100).rounded()))%", target: "", met: nil))
        }
        table.rows.append(try migration(postgres: postgres, checks: quick ? 20_000 : 1_000_000))
        return table
    }

    private static func measure(_ setup: Setup, location: String, largeRuns: Int, smallRuns: Int, diffs: Int) throws -> Figures {
        var servers: [LeakServer] = []
        var ports: [Int] = []
        var token = ""
        for index in 0..<setup.servers {
            let store = try LeakStore(database: location)
            if index == 0 { token = try store.createProject("bench").secret }
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.database = location
            configuration.logRequests = false
            let server = LeakServer(configuration: configuration, store: store)
            ports.append(try server.start())
            servers.append(server)
        }
        defer { for server in servers { server.stop(grace: .seconds(1)) } }
        // A warm-up, then the measured uploads.
        _ = try IngestBenchmark.upload((0..<4).map { IngestBenchmark.makeRun(key: "warm-\($0)", index: 10_000 + $0, checks: 100) },
                                       ports: ports, token: token)
        let large = (0..<largeRuns).map { IngestBenchmark.makeRun(key: "large-\($0)", index: $0, checks: 1_000) }
        let largeSeconds = try IngestBenchmark.upload(large, ports: ports, token: token)
        let small = (0..<smallRuns).map { IngestBenchmark.makeRun(key: "small-\($0)", index: 20_000 + $0, checks: 10) }
        let smallSeconds = try IngestBenchmark.upload(small, ports: ports, token: token)

        // Diffs between the large runs' commits (each run its own commit, its parent unknown).
        let paths = (0..<diffs).map { index -> String in
            let base = QueriesBenchmark.commitSHA(1_000_000 + index % largeRuns)
            let head = QueriesBenchmark.commitSHA(1_000_000 + (index + 1) % largeRuns)
            return "/v1/projects/bench/diff?base=\(base)&head=\(head)&environment=linux-swift6.3"
        }
        let next = Locked(0)
        let failures = Locked<[String]>([])
        let start = ContinuousClock.now
        let listening = ports
        onClientThreads(IngestBenchmark.clients) { thread in
            let connection = KeepAliveConnection(port: listening[thread % listening.count])
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < paths.count else { return }
                do {
                    let reply = try connection.request("GET", paths[index])
                    if reply.status != 200 { failures.withLock { $0.append("\(reply.status) \(reply.text)") } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        let diffSeconds = (ContinuousClock.now - start).nanoseconds / 1e9
        if let first = failures.withLock({ $0.first }) {
            throw KeepAliveConnection.Failure(description: "a diff failed: \(first)")
        }
        return Figures(checksPerSecond: Double(largeRuns * 1_000) / largeSeconds,
                       uploadsPerSecond: Double(smallRuns) / smallSeconds,
                       diffsPerSecond: Double(diffs) / diffSeconds)
    }

    /// `migrate` of a SQLite database of `checks` checks (1,000-check runs) into PostgreSQL.
    private static func migration(postgres: String, checks: Int) throws -> BenchmarkTable.Row {
        let source = try BenchDatabase(postgres: nil), target = try BenchDatabase(postgres: postgres)
        defer { source.drop(); target.drop() }
        let sqlite = try LeakStore(database: source.location, options: StoreOptions(synchronous: .off))
        _ = try sqlite.createProject("bench")
        for index in 0..<(checks / 1_000) {
            _ = try sqlite.ingest(IngestBenchmark.makeRun(key: "m-\(index)", index: index, checks: 1_000))
        }
        let start = ContinuousClock.now
        let copied = try sqlite.copy(into: try LeakStore(database: target.location))
        let seconds = (ContinuousClock.now - start).nanoseconds / 1e9
        let rows = copied.reduce(0) { $0 + $1.rows }
        let scaled = checks < 1_000_000 ? " (scale: \(String(format: "%.0f", seconds * 1_000_000 / Double(checks))) s a million)" : ""
        return .init(figure: "migrate SQLite → PostgreSQL, \(checks) checks (\(rows) rows)",
                     value: String(format: "%.1f s", seconds) + scaled, baseline: "", ratio: "",
                     target: checks >= 1_000_000 ? "< 120 s" : "", met: checks >= 1_000_000 ? seconds < 120 : nil)
    }
}

/// A SQLite file in a temp folder, or a PostgreSQL schema of its own.
final class BenchDatabase {
    let location: String
    let drop: () -> Void

    /// The PostgreSQL server the suites that measure it use: `LEAKHISTORY_BENCH_POSTGRES`, else
    /// the tests' `LEAKHISTORY_TEST_POSTGRES` (`.ci/postgres-test-cluster start` prints one).
    static var postgresURL: String? {
        let environment = ProcessInfo.processInfo.environment
        return environment["LEAKHISTORY_BENCH_POSTGRES"] ?? environment["LEAKHISTORY_TEST_POSTGRES"]
    }

    /// `LEAKHISTORY_BENCH_KEEP=1`: the suites that seed a database leave it behind, to replay a
    /// slow request against it.
    static var keep: Bool { ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_KEEP"] == "1" }

    init(postgres: String?) throws {
        let name = "bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        if let postgres {
            let admin = try PostgresConnection(url: postgres)
            try admin.execute("CREATE SCHEMA \(name)")
            location = postgres + (postgres.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(name)"
            drop = { try? admin.execute("DROP SCHEMA \(name) CASCADE") }
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            location = directory.appendingPathComponent("bench.sqlite").path
            drop = { try? FileManager.default.removeItem(at: directory) }
        }
    }
}

/// `LEAKHISTORY_BENCH_ENGINE=postgres`: the schemas a suite measures PostgreSQL in, each made on
/// the server `BenchDatabase.postgresURL` names; dropped by `finish`, or kept with
/// `LEAKHISTORY_BENCH_KEEP=1` (their URLs printed) to replay a slow request against
/// `leakhistory-server --database`.
final class BenchSchemas {
    let url: String
    private(set) var made: [BenchDatabase] = []

    /// Nil unless the suites are asked to measure PostgreSQL.
    /// - Throws: when they are and no PostgreSQL URL is set.
    static func requested() throws -> BenchSchemas? {
        guard ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_ENGINE"] == "postgres" else { return nil }
        guard let url = BenchDatabase.postgresURL else {
            throw BenchError("LEAKHISTORY_BENCH_ENGINE=postgres needs a PostgreSQL URL in LEAKHISTORY_BENCH_POSTGRES "
                             + "(`.ci/postgres-test-cluster start` prints one)")
        }
        return BenchSchemas(url: url)
    }

    private init(url: String) { self.url = url }

    /// A new schema; its URL as `--database` takes it is `location`.
    func make() throws -> BenchDatabase {
        let schema = try BenchDatabase(postgres: url)
        made.append(schema)
        return schema
    }

    func finish(suite: String) {
        for schema in made {
            if BenchDatabase.keep {
                FileHandle.standardError.write(Data("\(suite): kept \(schema.location)\n".utf8))
            } else {
                schema.drop()
            }
        }
        made = []
    }
}
