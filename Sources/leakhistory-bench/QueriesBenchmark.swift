import Foundation
import LeakReport
import LeakServer
import LeakStore

/// `leakhistory-bench queries`: the regression queries and the dashboard's pages over HTTP on a
/// seeded database — 1,000,000 checks over 10,000 commits, 500 types, 2,000 scenarios,
/// 3 environments — beside one indexed SQLite lookup timed in the same run.
enum QueriesBenchmark {
    struct Shape {
        var commits: Int
        var checks: Int
        var requests: Int
        static let full = Shape(commits: 10_000, checks: 1_000_000, requests: 300)
        static let quick = Shape(commits: 200, checks: 20_000, requests: 30)
    }

    static let types = 500
    static let scenarios = 2_000
    static let environments = ["linux-swift6.3", "macos-swift6.3", "ios-swift6.3"]

    static func run(quick: Bool) throws -> BenchmarkTable {
        let shape = quick ? Shape.quick : Shape.full
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try LeakStore(path: directory.appendingPathComponent("bench.sqlite").path)
        _ = try store.createProject("bench")

        let seedStart = ContinuousClock.now
        let (storedChecks, seededTypes) = try seed(store, shape: shape)
        let seedTime = ContinuousClock.now - seedStart
        try store.checkpoint()
        let bytesPerMillion = Double(store.sizeOnDisk() ?? 0) / (Double(storedChecks) / 1_000_000)

        var configuration = ServerConfiguration()
        configuration.logRequests = false
        configuration.port = 0
        configuration.database = store.location
        let server = LeakServer(configuration: configuration, store: store)
        let client = BenchHTTPClient(port: try server.start())
        defer { server.stop(grace: .seconds(1)) }

        var random = SplitMix64(seed: 42)
        let sha = { (commit: Int) in commitSHA(commit) }
        let lookup = try latencies(shape.requests * 4) { _ in
            _ = try store.read { db in
                try db.scalarInt("SELECT id FROM commits WHERE project_id = 1 AND sha = ?",
                                 [.text(sha(Int(random.next(below: UInt64(shape.commits)))))])
            }
        }
        /// A commit and its parent in a random environment: `base=…&head=…&environment=…`.
        func randomDiffQuery() -> String {
            let head = 1 + Int(random.next(below: UInt64(shape.commits - 1)))
            let environment = environments[Int(random.next(below: 3))]
            return "base=\(sha(head - 1))&head=\(sha(head))&environment=\(environment)"
        }
        /// A type the environment really checks, so that every trend walks the branch.
        func randomCheckedType() -> (type: Int, environment: String) {
            let index = Int(random.next(below: 3))
            return (seededTypes[index][Int(random.next(below: UInt64(seededTypes[index].count)))], environments[index])
        }
        let diff = try latencies(shape.requests) { _ in
            try client.expect200("GET", "/v1/projects/bench/diff?\(randomDiffQuery())")
        }
        let trend = try latencies(shape.requests) { _ in
            let (type, environment) = randomCheckedType()
            try client.expect200("GET", "/v1/projects/bench/types/App.Type\(type)/trend?branch=main&limit=50&environment=\(environment)")
        }
        let typesList = try latencies(shape.requests) { index in
            try client.expect200("GET", "/v1/projects/bench/types?branch=main&environment=\(environments[index % 3])")
        }
        let resolve = try latencies(shape.requests) { _ in
            // 99 commits never uploaded, then one that was: the whole list is searched.
            let known = Int(random.next(below: UInt64(shape.commits)))
            let candidates = (0..<99).map { sha(shape.commits + 1 + $0 + known) } + [sha(known)]
            let body = try JSONEncoder().encode(ResolveRequest(environment: environments[0], candidates: candidates))
            try client.expect200("POST", "/v1/projects/bench/resolve", body: body)
        }
        // The dashboard's pages: each draws from the same queries plus its own bounded lists.
        let projectPage = try latencies(shape.requests) { index in
            try client.expect200("GET", "/p/bench?branch=main&environment=\(environments[index % 3])")
        }
        let typePage = try latencies(shape.requests) { _ in
            let (type, environment) = randomCheckedType()
            try client.expect200("GET", "/p/bench/types/App.Type\(type)?branch=main&environment=\(environment)")
        }
        let commitPage = try latencies(shape.requests) { _ in
            try client.expect200("GET", "/p/bench/commits/\(sha(Int(random.next(below: UInt64(shape.commits)))))")
        }
        let diffPage = try latencies(shape.requests) { _ in
            try client.expect200("GET", "/p/bench/diff?\(randomDiffQuery())")
        }

        let baseline = percentile(lookup, 0.5)
        var table = BenchmarkTable(title: "queries — \(storedChecks) checks over \(shape.commits) commits, \(types) types, "
            + "\(scenarios) scenarios, \(environments.count) environments (seeded through ingest in "
            + "\(formatNanoseconds(seedTime.nanoseconds))); \(shape.requests) requests each over HTTP")
        func row(_ name: String, _ values: [Double], _ p: Double, targetMs: Double) {
            let value = percentile(values, p)
            table.rows.append(.init(
                figure: "\(name) p\(Int(p * 100))", value: formatNanoseconds(value),
                baseline: "\(formatNanoseconds(baseline)) indexed lookup p50", ratio: "\(round1(value / baseline))×",
                target: "≤ \(Int(targetMs)) ms", met: value <= targetMs * 1_000_000))
        }
        row("diff", diff, 0.5, targetMs: 5)
        row("diff", diff, 0.99, targetMs: 15)
        row("trend", trend, 0.5, targetMs: 10)
        row("trend", trend, 0.99, targetMs: 30)
        row("types", typesList, 0.5, targetMs: 10)
        row("types", typesList, 0.99, targetMs: 30)
        row("resolve (100 candidates)", resolve, 0.5, targetMs: 5)
        row("dashboard /p/{project}", projectPage, 0.5, targetMs: 50)
        row("dashboard /p/{project}", projectPage, 0.99, targetMs: 50)
        row("dashboard /p/{project}/types/{type}", typePage, 0.5, targetMs: 50)
        row("dashboard /p/{project}/types/{type}", typePage, 0.99, targetMs: 50)
        row("dashboard /p/{project}/commits/{sha}", commitPage, 0.99, targetMs: 50)
        row("dashboard /p/{project}/diff", diffPage, 0.99, targetMs: 50)
        table.rows.append(.init(
            figure: "database size per 1,000,000 checks", value: "\(round1(bytesPerMillion / 1_048_576)) MiB",
            baseline: "", ratio: "", target: "", met: nil))
        return table
    }

    /// Commits on `main`, each the first parent of the next; one run per commit and environment.
    /// Each type leaks in a few scenarios; some keys flip now and then, so flaky history is real.
    /// - Returns: the checks stored, and the types each environment checks.
    private static func seed(_ store: LeakStore, shape: Shape) throws -> (checks: Int, types: [[Int]]) {
        var random = SplitMix64(seed: 7)
        let perRun = max(1, shape.checks / (shape.commits * environments.count))
        // Each environment checks a fixed set of keys; about 4% of them leak.
        let keySets = environments.map { _ in
            (0..<perRun).map { _ in (scenario: Int(random.next(below: UInt64(scenarios))), type: Int(random.next(below: UInt64(types))),
                                     leaks: random.next(below: 25) == 0) }
        }
        let timestamp = Date(timeIntervalSince1970: 1_780_000_000)
        var stored = 0
        for commit in 0..<shape.commits {
            for (index, environment) in environments.enumerated() {
                let checks = keySets[index].map { key in
                    let flips = random.next(below: 50) == 0
                    return CheckRecord(
                        scenario: "Suite\(key.scenario % 100)/test\(key.scenario)()", file: "Tests\(key.scenario % 100).swift",
                        line: key.scenario % 400, type: "App.Type\(key.type)",
                        outcome: key.leaks != flips ? .leaked : .deallocated, waitedMs: 1, timeoutMs: 2_000,
                        fingerprint: key.leaks ? "fp-\(key.type)" : nil, timestamp: timestamp)
                }
                _ = try store.ingest(RunRecord(
                    project: "bench", commit: commitSHA(commit), branch: "main",
                    parents: commit == 0 ? [] : [commitSHA(commit - 1)], environment: environment,
                    runKey: "seed-\(commit)-\(index)", startedAt: timestamp, checks: checks))
                stored += checks.count
            }
        }
        return (stored, keySets.map { $0.map(\.type) })
    }

    static func commitSHA(_ number: Int) -> String {
        let digits = String(number, radix: 16)
        return String(repeating: "0", count: 40 - digits.count) + digits
    }

    /// Nanoseconds of each of `count` calls, after five warm-up calls.
    private static func latencies(_ count: Int, _ body: (Int) throws -> Void) throws -> [Double] {
        for index in 0..<5 { try body(index) }
        let clock = ContinuousClock()
        return try (0..<count).map { index in
            let start = clock.now
            try body(index)
            return (clock.now - start).nanoseconds
        }
    }

    private static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

/// A deterministic generator, so every run seeds the same database.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: UInt64) -> UInt64 { next() % bound }
}
