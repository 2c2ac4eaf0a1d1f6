import Foundation
import LeakReport
import LeakServer
import LeakStore

/// `leakhistory-bench queries`: the regression queries and every dashboard page over HTTP on a
/// history shaped like a real project's at two sizes — 1,000,000 checks and 10,000,000 (the same
/// history, uploaded further; the smaller kept as a copy) — measured side by side, request by
/// request in turn, beside one indexed SQLite lookup timed the same way, with the growth from
/// one size to the next.
///
/// The history is a `QueriesHistory`: by default a `SyntheticHistory` — a main line of pushes
/// and merged pull requests (whose commits are uploaded too), 400 keys of which a run checks about 300 (a window that slides as
/// tests come and go), stable leaks introduced and fixed, intermittent keys, re-runs, partial,
/// crashed and broken-harness runs, commits without uploads; every run uploaded in 2
/// environments. Now and then a main build also uploads one very large run (100,000 checks of
/// 100,000 keys at one commit), and one always lands shortly before each measured size, inside
/// the window the dashboard's sparklines and trends read. Seeded straight through the store
/// (`LeakStore.ingest`), so 10M checks take minutes; before each size is measured the log is
/// checkpointed and the machine's dirty pages written out (`sync`).
///
/// Each figure draws `requests` requests a size, the diff three times as many: its tail is the
/// heavy heads (a broken run that leaked every key beside a clean re-run), and from 300 draws its
/// p99 is the third-worst sample, which swung with how many of those a draw held (a p99 growth of
/// 1.38× once and 1.95× another time); the diff is a few milliseconds, so this costs seconds.
///
/// `LEAKHISTORY_BENCH_QUERIES_SHAPE=reactive` takes the gate bench's merge-heavy reactive
/// library instead (`GateHistory`, longer: 320 keys a full run, 3 confirmation attempts).
/// The diffs requested are the ones `leakhistory check` makes at builds CI ran
/// (`QueriesHistory.checkDiff`).
///
/// `LEAKHISTORY_BENCH_QUERIES_CHECKS=1000000,3000000` measures at other sizes,
/// `LEAKHISTORY_BENCH_QUERIES_REQUESTS=100` with fewer requests a figure. Progress goes to stderr.
/// `LEAKHISTORY_BENCH_SLOW_MS=150` prints each request slower than that (the tail's URLs);
/// `LEAKHISTORY_BENCH_KEEP=1` keeps the seeded database to look into them.
enum QueriesBenchmark {
    struct Shape {
        /// The sizes measured, in stored checks, ascending.
        var stages: [Int]
        var requests: Int
        /// The diff's requests: see the type's comment.
        var diffRequests: Int { requests * 3 }
        var largeRunChecks: Int
        /// Main builds between two periodic large runs.
        var largeRunEvery: Int
        static let full = Shape(stages: [1_000_000, 10_000_000], requests: 300, largeRunChecks: 100_000, largeRunEvery: 3_000)
        static let quick = Shape(stages: [20_000, 60_000], requests: 20, largeRunChecks: 5_000, largeRunEvery: 1_000)
    }

    static let environments = QueriesHistory.environments
    static let keys = 400
    static let checkedKeys = 300

    /// One size's latencies, in nanoseconds, by figure name.
    struct Stage {
        var checks: Int
        var seedSeconds: Double
        var bytesOnDisk: Int64
        var lookup: [Double]
        var figures: [(name: String, values: [Double])]
    }

    static func run(quick: Bool) throws -> BenchmarkTable {
        var shape = quick ? Shape.quick : Shape.full
        if let sizes = ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_QUERIES_CHECKS"] {
            shape.stages = sizes.split(separator: ",").compactMap { Int($0) }.sorted()
        }
        if let requests = ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_QUERIES_REQUESTS"].flatMap(Int.init), requests > 0 {
            shape.requests = requests
        }
        if let schemas = try BenchSchemas.requested() {
            defer { schemas.finish(suite: "queries") }
            return try measure(shape: shape, seeded: try seedPostgres(shape: shape, schemas: schemas), engine: "PostgreSQL")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // `LEAKHISTORY_BENCH_KEEP=1` keeps the seeded database, to look into a slow query afterwards.
        defer {
            if BenchDatabase.keep {
                FileHandle.standardError.write(Data("queries: the database is kept in \(directory.path)\n".utf8))
            } else {
                try? FileManager.default.removeItem(at: directory)
            }
        }
        let store = try LeakStore(path: directory.appendingPathComponent("bench.sqlite").path)
        _ = try store.createProject("bench")

        var seeder = try RealisticSeeder(shape: shape)
        // Each smaller size is kept as a copy of the database beside the seeder's state then, and
        // every size is measured once the largest is seeded, request by request in turn: a
        // machine that slows down for a minute (seen: a 1.7× slower indexed lookup from one size's
        // measurement to the next) moves every size's figures alike, not only the growth's top.
        var sizes: [SeededSize] = []
        for target in shape.stages {
            let start = ContinuousClock.now
            try seeder.upload(to: store, until: target)
            let seconds = (ContinuousClock.now - start).nanoseconds / 1e9
            FileHandle.standardError.write(Data("queries: \(seeder.storedChecks) checks stored in \(round1(seconds)) s\n".utf8))
            // The seeding wrote hundreds of megabytes in minutes: the log is folded into the
            // database (which a copy then holds whole) and the kernel's dirty pages written out
            // before anything is timed, so that the figures are the queries' (two diffs took 0.5 s
            // right after a 10M seeding without it, and 10 and 14 ms on the same database, replayed
            // later).
            try store.checkpoint()
            var sizeStore = store
            if target != shape.stages.last {
                let path = directory.appendingPathComponent("bench-\(target).sqlite").path
                try FileManager.default.copyItem(atPath: store.location, toPath: path)
                sizeStore = try LeakStore(path: path)
            }
            sizes.append(SeededSize(seeder: seeder, store: sizeStore, seedSeconds: seconds, bytesOnDisk: store.sizeOnDisk() ?? 0))
        }
        return try measure(shape: shape, seeded: sizes, engine: "SQLite")
    }

    /// One size, seeded: the seeder's state then and a store holding that much.
    private struct SeededSize {
        var seeder: RealisticSeeder
        var store: LeakStore
        var seedSeconds: Double
        var bytesOnDisk: Int64
    }

    /// `LEAKHISTORY_BENCH_ENGINE=postgres`: each size seeded into a schema of its own from the
    /// start (a schema cannot be copied as a file is; the history is the same, so the smaller
    /// size is the larger one's beginning), then `VACUUM (ANALYZE)` — what autovacuum does to a
    /// table that took that many rows — so that the planner has statistics and the visibility map
    /// lets index-only scans skip the heap. The schemas are dropped at the end unless
    /// `LEAKHISTORY_BENCH_KEEP=1`.
    private static func seedPostgres(shape: Shape, schemas: BenchSchemas) throws -> [SeededSize] {
        var sizes: [SeededSize] = []
        for target in shape.stages {
            let database = try schemas.make()
            let store = try LeakStore(database: database.location)
            _ = try store.createProject("bench")
            var seeder = try RealisticSeeder(shape: shape)
            let start = ContinuousClock.now
            try seeder.upload(to: store, until: target)
            try PostgresConnection(url: database.location).execute("VACUUM (ANALYZE)")
            let seconds = (ContinuousClock.now - start).nanoseconds / 1e9
            FileHandle.standardError.write(Data("queries: \(seeder.storedChecks) checks stored in PostgreSQL in \(round1(seconds)) s\n".utf8))
            sizes.append(SeededSize(seeder: seeder, store: store, seedSeconds: seconds, bytesOnDisk: store.sizeOnDisk() ?? 0))
        }
        return sizes
    }


    /// Every figure at every seeded size, on a server each.
    private static func measure(shape: Shape, seeded sizes: [SeededSize], engine: String) throws -> BenchmarkTable {
        sync()
        FileHandle.standardError.write(Data("queries: measuring every size in turn\n".utf8))
        var probes: [SizeProbe] = []
        defer {
            for probe in probes { probe.server.stop(grace: .seconds(1)) }
        }
        for size in sizes {
            let sizeStore = size.store
            var configuration = ServerConfiguration()
            configuration.logRequests = false
            configuration.port = 0
            configuration.database = sizeStore.location
            let server = LeakServer(configuration: configuration, store: sizeStore)
            let client = BenchHTTPClient(port: try server.start())
            probes.append(SizeProbe(seeder: size.seeder, store: sizeStore, server: server, client: client))
        }
        let measured = try measure(probes, requests: shape.requests)
        let stages = zip(sizes, measured).map { size, figures in
            Stage(checks: size.seeder.storedChecks, seedSeconds: size.seedSeconds, bytesOnDisk: size.bytesOnDisk,
                  lookup: figures.lookup, figures: figures.figures)
        }
        return table(stages, seeder: sizes[sizes.count - 1].seeder, engine: engine)
    }

    /// One measured size: its seeder's state, its database and a server on it.
    private struct SizeProbe {
        var seeder: RealisticSeeder
        var store: LeakStore
        var server: LeakServer
        var client: BenchHTTPClient
    }

    /// Every figure at every size, the sizes taking turns request by request (in alternating
    /// order, so that neither always follows the other), each size drawing its own requests
    /// from its own seeded generator.
    private static func measure(_ probes: [SizeProbe], requests: Int) throws
        -> [(lookup: [Double], figures: [(name: String, values: [Double])])]
    {
        let requestsBySize = try probes.map { try figureRequests($0, requests: requests) }
        var results = probes.map { _ in (lookup: [Double](), figures: [(name: String, values: [Double])]()) }
        for (index, figure) in requestsBySize[0].enumerated() {
            let values = try latencies(figure.count, sizes: probes.count) { request, size in try requestsBySize[size][index].send(request) }
            for size in probes.indices {
                if index == 0 {
                    results[size].lookup = values[size]
                } else {
                    results[size].figures.append((figure.name, values[size]))
                }
            }
        }
        return results
    }

    /// The requests of every figure at one size, in the order they are measured: first the
    /// baseline (an indexed SQLite lookup, straight through the store), then each figure.
    private static func figureRequests(_ probe: SizeProbe, requests: Int) throws
        -> [(name: String, count: Int, send: (Int) throws -> Void)]
    {
        var random = SplitMix64(seed: 42)
        let seeder = probe.seeder, store = probe.store, client = probe.client
        let history = seeder.history
        let sha = RealisticSeeder.sha
        let uploaded = seeder.uploadedBuilds
        // The diffs `leakhistory check` asked for at builds CI ran, drawn before anything is
        // timed: finding each one's bases takes the server's resolve, as the CLI's does.
        var diffRandom = SplitMix64(seed: 43)
        let diffs = try (0..<(seeder.shape.diffRequests + requests + 10)).map { _ in
            let build = uploaded[Int(diffRandom.next(below: UInt64(uploaded.count)))]
            let environment = environments[Int(diffRandom.next(below: UInt64(environments.count)))]
            let diff = try history.checkDiff(build) { candidates in
                try store.resolveBase(project: "bench", environment: environment, candidates: candidates.map(sha)).map { candidates[$0] }
            }
            return (diff, environment)
        }
        let merges = diffs.filter { $0.0.mergeBase == nil && history.commits[$0.0.head].parents.count > 1 }.count
        let pullRequests = diffs.filter { $0.0.mergeBase != nil }
        FileHandle.standardError.write(Data(("queries: \(diffs.count) diffs drawn at \(seeder.storedChecks) checks: "
            + "\(diffs.count - pullRequests.count - merges) pushes and \(merges) merges on main, \(pullRequests.count) pull-request "
            + "heads (\(pullRequests.filter { $0.0.after != nil }.count) with after), \(diffs.filter { $0.0.base == nil }.count) without a base\n").utf8))
        // The API's diff answers without a base too; the diff page compares two commits.
        let diffQueries = diffs.map { $0.query(environment: $1, sha: sha) }
        let pageQueries = diffs.filter { $0.0.base != nil }.map { $0.query(environment: $1, sha: sha) }
        var nextDiff = 0, nextPage = 0
        func nextDiffQuery() -> String {
            defer { nextDiff = (nextDiff + 1) % diffQueries.count }
            return diffQueries[nextDiff]
        }
        func nextPageQuery() -> String {
            defer { nextPage = (nextPage + 1) % pageQueries.count }
            return pageQueries[nextPage]
        }
        func randomType() -> String { history.keys[Int(random.next(below: UInt64(history.keys.count)))].type }
        func randomEnvironment() -> String { environments[Int(random.next(below: UInt64(environments.count)))] }
        func trend(_ limit: Int) -> (Int) throws -> Void {
            { _ in
                try client.expect200("GET", "/v1/projects/bench/types/\(randomType())/trend?branch=main&limit=\(limit)&environment=\(randomEnvironment())")
            }
        }
        return [
            ("lookup", requests * 4, { _ in
                _ = try store.read { db in
                    try db.scalarInt("SELECT id FROM commits WHERE project_id = 1 AND sha = ?",
                                     [.text(sha(uploaded[Int(random.next(below: UInt64(uploaded.count)))].commit))])
                }
            }),
            ("diff", seeder.shape.diffRequests, { _ in try client.expect200("GET", "/v1/projects/bench/diff?\(nextDiffQuery())") }),
            ("types", requests, { index in
                try client.expect200("GET", "/v1/projects/bench/types?branch=main&environment=\(environments[index % environments.count])")
            }),
            ("trend, limit 50", requests, trend(50)),
            ("trend, limit 1000", requests, trend(1_000)),
            ("resolve (100 candidates)", requests, { _ in
                // 99 commits never uploaded, then one that was: the whole list is searched.
                let known = uploaded[Int(random.next(below: UInt64(uploaded.count)))].commit
                let candidates = (0..<99).map { sha(history.commits.count + 1 + $0) } + [sha(known)]
                let body = try JSONEncoder().encode(ResolveRequest(environment: randomEnvironment(), candidates: candidates))
                try client.expect200("POST", "/v1/projects/bench/resolve", body: body)
            }),
            ("scenario history, limit 50", requests, { _ in
                let scenario = history.keys[Int(random.next(below: UInt64(history.keys.count)))].scenario
                let encoded = scenario.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? scenario
                try client.expect200("GET", "/v1/projects/bench/scenarios/history?scenario=\(encoded)&environment=\(randomEnvironment())&limit=50")
            }),
            // The dashboard's pages: each draws from the same queries plus its own bounded lists.
            ("page /p/{project}", requests, { index in
                try client.expect200("GET", "/p/bench?branch=main&environment=\(environments[index % environments.count])")
            }),
            ("page /p/{project}/types/{type}", requests, { _ in
                try client.expect200("GET", "/p/bench/types/\(randomType())?branch=main&environment=\(randomEnvironment())")
            }),
            ("page /p/{project}/diff", requests, { _ in try client.expect200("GET", "/p/bench/diff?\(nextPageQuery())") }),
            ("page /p/{project}/commits/{sha}", requests, { _ in
                try client.expect200("GET", "/p/bench/commits/\(sha(uploaded[Int(random.next(below: UInt64(uploaded.count)))].commit))")
            }),
        ]
    }

    /// p50 and p99 of each figure at the largest size, beside its value at the size before and
    /// the growth between them; the targets are issue 15's, read at 10M checks.
    private static func table(_ stages: [Stage], seeder: RealisticSeeder, engine: String) -> BenchmarkTable {
        let last = stages[stages.count - 1]
        let previous = stages.count > 1 ? stages[stages.count - 2] : nil
        let sizes = stages.map { "\(millions($0.checks)) (seeded in \(round1($0.seedSeconds)) s)" }.joined(separator: ", then ")
        var table = BenchmarkTable(title: "queries (\(engine)) — \(seeder.history.summary), \(environments.count) environments, "
            + "\(seeder.largeRuns) runs of \(seeder.shape.largeRunChecks) checks; measured at \(sizes); "
            + "\(seeder.shape.requests) sequential requests each over HTTP (the diff \(seeder.shape.diffRequests))")
        let p99Targets: [String: Double] = [
            "diff": 15, "types": 30, "trend, limit 1000": 50, "resolve (100 candidates)": 5, "page /p/{project}": 100,
            "page /p/{project}/types/{type}": 100, "page /p/{project}/diff": 100, "page /p/{project}/commits/{sha}": 100,
        ]
        let lookup = percentile(last.lookup, 0.5)
        for (index, figure) in last.figures.enumerated() {
            for p in [0.5, 0.99] {
                let value = percentile(figure.values, p)
                let before = previous.map { percentile($0.figures[index].values, p) }
                let growth = before.map { value / $0 }
                let targetMs = p == 0.99 ? p99Targets[figure.name] : nil
                var target = targetMs.map { "≤ \(Int($0)) ms" } ?? ""
                var met: Bool? = targetMs.map { value <= $0 * 1_000_000 }
                if p == 0.99, let growth, targetMs != nil, !figure.name.hasPrefix("page") {
                    target += ", growth < 1.5×"
                    met = (met ?? true) && growth < 1.5
                }
                let baseline = [before.map { "\(formatNanoseconds($0)) at \(millions(previous!.checks))" },
                                "lookup \(formatNanoseconds(lookup))"].compactMap { $0 }.joined(separator: "; ")
                table.rows.append(.init(
                    figure: "\(figure.name) p\(Int(p * 100)) at \(millions(last.checks))", value: formatNanoseconds(value),
                    baseline: baseline, ratio: growth.map { "growth \(round2($0))×" } ?? "\(round1(value / lookup))× lookup",
                    target: target, met: met))
            }
        }
        for stage in stages {
            let perMillion = Double(stage.bytesOnDisk) / (Double(stage.checks) / 1_000_000)
            table.rows.append(.init(figure: "database size per 1,000,000 checks at \(millions(stage.checks))",
                                    value: "\(round1(perMillion / 1_048_576)) MiB", baseline: "", ratio: "", target: "", met: nil))
        }
        return table
    }

    private static func millions(_ checks: Int) -> String {
        checks >= 1_000_000 ? "\(round1(Double(checks) / 1_000_000))M checks" : "\(checks) checks"
    }

    static func commitSHA(_ number: Int) -> String {
        let digits = String(number, radix: 16)
        return String(repeating: "0", count: 40 - digits.count) + digits
    }

    /// Nanoseconds of each of `count` calls of `body(request, size)` for every size, after five
    /// warm-up calls each: the sizes in turn, every other request in the opposite order.
    private static func latencies(_ count: Int, sizes: Int, _ body: (Int, Int) throws -> Void) throws -> [[Double]] {
        for index in 0..<5 { for size in 0..<sizes { try body(index, size) } }
        let clock = ContinuousClock()
        var values = Array(repeating: [Double](), count: sizes)
        for index in 0..<count {
            for turn in 0..<sizes {
                let size = index % 2 == 0 ? turn : sizes - 1 - turn
                let start = clock.now
                try body(index, size)
                values[size].append((clock.now - start).nanoseconds)
            }
        }
        return values
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

/// Uploads a `QueriesHistory`'s builds in the order CI ran them, each run in every environment,
/// straight through the store, plus the large runs (`QueriesBenchmark.Shape`).
struct RealisticSeeder {
    let shape: QueriesBenchmark.Shape
    let history: QueriesHistory
    private(set) var storedChecks = 0
    private(set) var largeRuns = 0
    private(set) var uploadedBuilds: [QueriesHistory.Build] = []
    private var nextBuild = 0
    private var mainBuilds = 0
    private let startedAt = Date(timeIntervalSince1970: 1_780_000_000)

    static func sha(_ commit: Int) -> String { QueriesBenchmark.commitSHA(commit + 1) }

    init(shape: QueriesBenchmark.Shape) throws {
        self.shape = shape
        history = try QueriesHistory.requested(checks: shape.stages.last ?? 0)
    }

    /// Uploads builds until `target` checks are stored. The last large run of the stage lands
    /// about 20 builds before its end: inside every sparkline, trend and first-seen window.
    mutating func upload(to store: LeakStore, until target: Int) throws {
        let typicalBuild = QueriesBenchmark.checkedKeys * QueriesBenchmark.environments.count
        var stageLargeRun = false
        while storedChecks < target, nextBuild < history.builds.count {
            let build = history.builds[nextBuild]
            let environments = QueriesBenchmark.environments
            let runs = environments.indices.map { history.runs(ofBuild: nextBuild, environment: $0) }
            // Run by run, each in every environment that ran it.
            for runIndex in 0..<(runs.map(\.count).max() ?? 0) {
                for (environmentIndex, environment) in environments.enumerated() where runIndex < runs[environmentIndex].count {
                    try ingest(store, commit: build.commit, key: "build-\(nextBuild)-\(runIndex)-\(environment)", environment: environment,
                               checks: runs[environmentIndex][runIndex])
                }
            }
            if !build.isPullRequest {
                mainBuilds += 1
                let nearEnd = !stageLargeRun && storedChecks + shape.largeRunChecks + 20 * typicalBuild >= target
                if nearEnd || mainBuilds % shape.largeRunEvery == 0 {
                    stageLargeRun = stageLargeRun || nearEnd
                    try ingest(store, commit: build.commit, key: "large-\(nextBuild)", environment: environments[0],
                               checks: largeRun(commit: build.commit))
                    largeRuns += 1
                }
            }
            uploadedBuilds.append(build)
            nextBuild += 1
        }
    }

    private mutating func ingest(_ store: LeakStore, commit: Int, key: String, environment: String, checks: [CheckRecord]) throws {
        _ = try store.ingest(RunRecord(
            project: "bench", commit: Self.sha(commit), branch: history.commits[commit].branch,
            parents: history.commits[commit].parents.map(Self.sha), environment: environment, runKey: key,
            startedAt: startedAt.addingTimeInterval(Double(nextBuild) * 60), checks: checks))
        storedChecks += checks.count
    }

    /// A stress suite's run: one check each of `largeRunChecks` parameterised scenarios, over
    /// the history's types, 0.5% of them leaking.
    private func largeRun(commit: Int) -> [CheckRecord] {
        (0..<shape.largeRunChecks).map { index in
            let leaked = (index + commit) % 200 == 0
            return CheckRecord(scenario: "StressTests/case(\(index))", file: "Tests/AppTests/StressTests.swift", line: 20,
                               type: history.keys[index % history.keys.count].type, outcome: leaked ? .leaked : .deallocated,
                               waitedMs: leaked ? 2_000 : 2, timeoutMs: 2_000, fingerprint: leaked ? "fp-stress-\(index % 7)" : nil)
        }
    }
}
