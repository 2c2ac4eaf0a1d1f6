import Foundation
import LoopbackClient
import LeakReport
import LeakStore

/// `leakhistory-bench ingest`: uploads shaped like CI's (`CIUploads`), each round going on with
/// the history where the last one stopped, over loopback HTTP from a separate client process
/// (`leakhistory-bench ingest-client`, 8 threads on keep-alive connections) to the real
/// `leakhistory-server` binary — 1,000-check runs (checks/s) and 10-check runs (uploads/s) —
/// beside, in the same run and from the same client, a general-purpose peer (Datasette's
/// `/-/insert` API into a WAL SQLite table with the same columns, when `datasette` is on PATH)
/// and the raw SQLite insert of the same rows into the same schema (PostgreSQL's, with
/// `LEAKHISTORY_BENCH_ENGINE=postgres`: the server on PostgreSQL); the server's peak RSS; and
/// the latency of small requests while a 100,000-check upload is being stored, and while the
/// next builds' 1,000-check uploads come from every client (they share transactions).
/// `LEAKHISTORY_BENCH_INGEST_STALL=1` runs only the warm-up round (which the second huge upload
/// lands on) and the stall probes, without the peer and the raw baseline.
/// `LEAKHISTORY_BENCH_INGEST_SMALL=1` runs only the 10-check uploads and their raw baseline, in
/// 9 rounds after the warm-up instead of 5 (the same figure, a steadier median), without the
/// 1,000-check uploads, the peer and the stall probes: to measure a change to small uploads.
/// `LEAKHISTORY_BENCH_INGEST_LARGE=1` does the same for the 1,000-check uploads.
enum IngestBenchmark {
    struct Shape {
        var largeRunsPerRound: Int
        var smallRunsPerRound: Int
        var rounds: Int
        var hugeRunChecks: Int
        static let full = Shape(largeRunsPerRound: 100, smallRunsPerRound: 3_000, rounds: 5, hugeRunChecks: 100_000)
        static let quick = Shape(largeRunsPerRound: 8, smallRunsPerRound: 200, rounds: 1, hugeRunChecks: 10_000)
    }

    /// Client threads in the client process, each with its own keep-alive connection.
    static let clients = 8

    static func run(quick: Bool) throws -> BenchmarkTable {
        var shape = quick ? Shape.quick : Shape.full
        let environment = ProcessInfo.processInfo.environment
        let stallOnly = environment["LEAKHISTORY_BENCH_INGEST_STALL"] == "1"
        let smallOnly = !stallOnly && environment["LEAKHISTORY_BENCH_INGEST_SMALL"] == "1"
        let largeOnly = !stallOnly && !smallOnly && environment["LEAKHISTORY_BENCH_INGEST_LARGE"] == "1"
        let oneSize = smallOnly || largeOnly
        if stallOnly { shape.rounds = 0 }
        if oneSize {
            if smallOnly { shape.largeRunsPerRound = 0 } else { shape.smallRunsPerRound = 0 }
            if !quick { shape.rounds = 9 }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-ingest-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard FileManager.default.isExecutableFile(atPath: ServerBinary.executable.path) else {
            throw BenchError("no leakhistory-server beside this binary at \(ServerBinary.executable.path); "
                             + "build it first: swift build -c release --product leakhistory-server")
        }

        // `LEAKHISTORY_BENCH_ENGINE=postgres`: the server and the raw baseline on PostgreSQL (a
        // schema each), the peer as it is.
        let schemas = try BenchSchemas.requested()
        defer { schemas?.finish(suite: "ingest") }
        let database: String, raw: any RawBaseline
        if let schemas {
            database = try schemas.make().location
            raw = try RawPostgresInsertBaseline(url: try schemas.make().location)
        } else {
            database = directory.appendingPathComponent("server.sqlite").path
            raw = try RawInsertBaseline(path: directory.appendingPathComponent("raw.sqlite").path)
        }
        let token = try ServerBinary.createProject("bench", database: database)
        let server = try ServerBinary(database: database, folder: directory)
        defer { server.stop() }
        let rssBefore = server.memory?.rssKiB ?? 0
        var peer: DatasettePeer?
        if !stallOnly && !oneSize {
            do {
                peer = try DatasettePeer(folder: directory)
            } catch let error as DatasettePeer.Missing {
                print("ingest: \(error.description); the peer's columns are left out")
            }
        }
        defer { peer?.stop() }

        var rates: [String: [Double]] = [:]
        // Round 0 is the warm-up and is not kept.
        for round in 0...shape.rounds {
            for (name, count, checks) in [("large", shape.largeRunsPerRound, 1_000), ("small", shape.smallRunsPerRound, 10)]
            where count > 0 {
                // Each round goes on with the history where the last one stopped: new commits, known keys.
                let prefix = "\(name)-\(round)", first = round * count
                let ours = try IngestClient.spawn(target: .leakhistory, port: server.port, token: token, prefix: prefix,
                                                  uploads: count, checks: checks, firstIndex: first)
                let theirs = try peer.map {
                    try IngestClient.spawn(target: .datasette, port: $0.port, token: $0.token, prefix: prefix,
                                           uploads: count, checks: checks, firstIndex: first)
                }
                guard !stallOnly else { continue }
                let rawSeconds = try raw.insert(IngestClient.runs(prefix: prefix, uploads: count, checks: checks, firstIndex: first))
                guard round > 0 else { continue }
                rates[name, default: []].append(Double(count) / ours)
                if let theirs { rates[name + "-peer", default: []].append(Double(count) / theirs) }
                rates[name + "-raw", default: []].append(Double(count) / rawSeconds)
            }
        }
        // Every check is counted in its key's state (a passing one has no row of its own).
        let stored = try LeakStore(database: database).read {
            try $0.scalarInt("SELECT coalesce(sum(checked_count), 0) FROM leak_states") ?? 0
        }
        let expected = (shape.rounds + 1) * (shape.largeRunsPerRound * 1_000 + shape.smallRunsPerRound * 10)
        guard stored == expected else { throw BenchError("the server stored \(stored) checks, expected \(expected)") }
        // The huge run on a commit nothing was uploaded to (published by naming its placeholder
        // commit), then on one the rounds uploaded to (its key states merged into the commit's);
        // then the next builds' 1,000-check uploads from every client, which share transactions.
        let huge = { (prefix: String, firstIndex: Int) in
            StallProbe.Load(prefix: prefix, uploads: 1, checks: shape.hugeRunChecks, threads: 1, firstIndex: firstIndex, shape: .huge)
        }
        let loads: [(StallProbe.Load, String, limited: Bool)] = oneSize ? [] : [
            (huge("huge-new", 90_000), "a \(shape.hugeRunChecks)-check upload to a new commit", true),
            (huge("huge-merged", 0), "a \(shape.hugeRunChecks)-check upload to a commit with runs", true),
            (StallProbe.Load(prefix: "stream", uploads: shape.largeRunsPerRound, checks: 1_000, threads: clients,
                             firstIndex: (shape.rounds + 1) * shape.largeRunsPerRound, shape: .ci),
             "\(shape.largeRunsPerRound) 1,000-check uploads from \(clients) clients", false),
        ]
        let stalls = try loads.map { (try StallProbe.measure(server: server, token: token, load: $0.0), $0.1, $0.limited) }
        let memory = server.memory ?? ProcessMemory(rssKiB: 0, hwmKiB: 0)

        var table = BenchmarkTable(title: "ingest — uploads shaped like CI's (a suite of known keys run on each new commit) from "
            + "a client process (\(clients) threads on keep-alive connections) "
            + "to leakhistory-server (pid \(server.pid), on \(raw.engine)) over loopback, and the same client to "
            + (peer.map { "Datasette \($0.version) (/-/insert into a WAL SQLite table with the same columns)" } ?? (oneSize ? "no peer (one upload size only)" : "no peer (datasette not installed)"))
            + "; raw \(raw.engine) inserts of the same rows; median of \(shape.rounds) rounds after a warm-up; \(stored) checks stored and counted")
        func row(_ name: String, _ key: String, scale: Double, unit: String, peerTarget: Double) {
            let value = median(rates[key] ?? []) * scale, base = median(rates[key + "-raw"] ?? []) * scale
            let peerValue = rates[key + "-peer"].map { median($0) * scale }
            let ofRaw = value / base
            table.rows.append(.init(
                figure: "\(name) vs raw \(raw.engine)", value: "\(Int(value)) \(unit)", baseline: "\(Int(base)) \(unit) raw \(raw.engine) insert",
                ratio: "\(Int((ofRaw * 100).rounded()))%", target: "≥ 60% of raw", met: ofRaw >= 0.6))
            if let peerValue {
                table.rows.append(.init(
                    figure: "\(name) vs the peer", value: "\(Int(value)) \(unit)", baseline: "\(Int(peerValue)) \(unit) Datasette",
                    ratio: "\(round2(value / peerValue))×", target: "≥ \(Int(peerTarget))× the peer", met: value >= peerTarget * peerValue))
            }
        }
        if !stallOnly {
            for (name, key) in [("1,000-check", "large"), ("10-check", "small")] where !(rates[key] ?? []).isEmpty {
                let rounds = zip(rates[key] ?? [], rates[key + "-raw"] ?? []).map { "\(Int(($0 / $1 * 100).rounded()))%" }
                print("ingest: \(name) uploads a round, % of raw: \(rounds.joined(separator: " "))")
            }
            if !smallOnly { row("checks/s, 1,000-check uploads", "large", scale: 1_000, unit: "checks/s", peerTarget: 2) }
            if !largeOnly { row("uploads/s, 10-check uploads", "small", scale: 1, unit: "uploads/s", peerTarget: 4) }
        }
        table.rows.append(.init(
            figure: "peak server RSS (VmHWM)", value: "\(memory.hwmKiB / 1_024) MiB",
            baseline: "\(rssBefore / 1_024) MiB at start", ratio: "", target: "≤ 150 MiB", met: memory.hwmKiB <= 150 * 1_024))
        for (stall, load, limited) in stalls {
            table.rows.append(.init(
                figure: "small requests during \(load), max",
                value: formatNanoseconds(stall.duringMax), baseline: "\(formatNanoseconds(stall.quietMax)) max without it",
                ratio: "\(stall.during) requests, p99 \(formatNanoseconds(stall.duringP99)); slowest upload "
                    + "\(formatNanoseconds(stall.duringUploadMax)), read \(formatNanoseconds(stall.duringReadMax))",
                target: limited ? "≤ 100 ms" : "",
                met: limited ? stall.duringMax <= 100_000_000 : nil))
            table.rows.append(.init(figure: load, value: formatNanoseconds(stall.load), baseline: "", ratio: "", target: "", met: nil))
        }
        if let peer, let peerMemory = peer.memory {
            table.rows.append(.init(figure: "the peer's RSS at the end", value: "\(peerMemory.rssKiB / 1_024) MiB",
                                    baseline: "", ratio: "", target: "", met: nil))
        }
        return table
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    /// A run on its own commit: scenarios and types from realistic pools, about 4% leaked.
    static func makeRun(key: String, index: Int, checks: Int, project: String = "bench") -> RunRecord {
        var random = SplitMix64(seed: UInt64(index * 7_919 + checks))
        let timestamp = Date(timeIntervalSince1970: 1_780_000_000)
        let records = (0..<checks).map { _ in
            let scenario = Int(random.next(below: 2_000)), type = Int(random.next(below: 500))
            let leaked = random.next(below: 25) == 0
            return CheckRecord(
                scenario: "Suite\(scenario % 100)/test\(scenario)()", file: "Tests\(scenario % 100).swift",
                line: scenario % 400, type: "App.Type\(type)", outcome: leaked ? .leaked : .deallocated,
                waitedMs: 1, timeoutMs: 2_000, fingerprint: leaked ? "fp-\(type)" : nil, timestamp: timestamp)
        }
        return RunRecord(project: project, commit: QueriesBenchmark.commitSHA(1_000_000 + index), branch: "main",
                         parents: [QueriesBenchmark.commitSHA(index)], environment: "linux-swift6.3", runKey: key,
                         startedAt: timestamp, tool: .init(name: "leakhistory-bench", version: "1"), checks: records)
    }

    /// Sends every run from `clients` threads (thread i to `ports[i % ports.count]`: several
    /// servers behind a round-robin balancer); returns the wall-clock seconds. Any answer but
    /// 201 is an error: the figure counts stored uploads only.
    static func upload(_ runs: [RunRecord], ports: [Int], token: String) throws -> Double {
        let encoder = JSONEncoder()
        let bodies = try runs.map { try encoder.encode($0) }
        return try IngestClient.send(bodies, path: "/v1/projects/bench/runs", ports: ports, token: token)
    }
}

/// The small requests — 10-check uploads and `GET /types` in turn, one at a time — answered
/// before and during the uploads of another process (one huge run, or many runs from several
/// clients).
enum StallProbe {
    /// What the other process uploads (`IngestClient.start`).
    struct Load {
        var prefix: String
        var uploads: Int
        var checks: Int
        var threads: Int
        var firstIndex: Int
        var shape: IngestClient.Shape
    }

    struct Result {
        var quietMax: Double
        var during: Int
        var duringMax: Double
        var duringP99: Double
        /// The slowest probe upload and the slowest probe read during the load.
        var duringUploadMax: Double
        var duringReadMax: Double
        /// Nanoseconds the other process took for its uploads.
        var load: Double
    }

    static func measure(server: ServerBinary, token: String, load: Load) throws -> Result {
        let prefix = load.prefix
        let connection = KeepAliveConnection(port: server.port)
        var sequence = 0
        /// Every other probe an upload, the others a read; returns the nanoseconds and whether it uploaded.
        func probe() throws -> (nanoseconds: Double, uploaded: Bool) {
            sequence += 1
            let start = ContinuousClock.now
            let uploads = sequence % 2 == 0
            if uploads {
                let run = IngestBenchmark.makeRun(key: "probe-\(prefix)-\(sequence)", index: 500_000 + sequence, checks: 10)
                let reply = try connection.request("POST", "/v1/projects/bench/runs", body: try JSONEncoder().encode(run),
                                                   headers: ["Authorization": "Bearer \(token)"])
                guard reply.status == 201 else { throw BenchError("a probe upload answered \(reply.status): \(reply.text)") }
            } else {
                let reply = try connection.request("GET", "/v1/projects/bench/types?branch=main&environment=linux-swift6.3")
                guard reply.status == 200 else { throw BenchError("a probe read answered \(reply.status): \(reply.text)") }
            }
            return ((ContinuousClock.now - start).nanoseconds, uploads)
        }
        let quiet = try (0..<40).map { _ in try probe().nanoseconds }
        // The uploads from a client process of its own; probes until they have been answered.
        let process = try IngestClient.start(target: .leakhistory, port: server.port, token: token, prefix: prefix,
                                             uploads: load.uploads, checks: load.checks, threads: load.threads,
                                             firstIndex: load.firstIndex, shape: load.shape)
        var during: [Double] = []
        var slowest = (upload: 0.0, read: 0.0)
        while process.isRunning {
            let (nanoseconds, uploaded) = try probe()
            during.append(nanoseconds)
            if uploaded { slowest.upload = max(slowest.upload, nanoseconds) } else { slowest.read = max(slowest.read, nanoseconds) }
            usleep(5_000)
        }
        let seconds = try IngestClient.finish(process)
        let sorted = during.sorted()
        return Result(quietMax: quiet.max() ?? 0, during: during.count, duringMax: sorted.last ?? 0,
                      duringP99: sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))],
                      duringUploadMax: slowest.upload, duringReadMax: slowest.read, load: seconds * 1e9)
    }
}
