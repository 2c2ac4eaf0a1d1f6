import Foundation
import LoopbackClient
import LeakReport
import LeakServer
import LeakStore

/// `leakhistory-bench ingest`: uploads over loopback HTTP to a real in-process server, several
/// client threads on keep-alive connections — 1,000-check runs (checks/s) and 10-check runs
/// (uploads/s) — each beside the raw SQLite insert of the same rows into the same schema,
/// timed in the same run; and the process's peak RSS.
enum IngestBenchmark {
    struct Shape {
        var largeRunsPerRound: Int
        var smallRunsPerRound: Int
        var rounds: Int
        static let full = Shape(largeRunsPerRound: 100, smallRunsPerRound: 3_000, rounds: 5)
        static let quick = Shape(largeRunsPerRound: 8, smallRunsPerRound: 200, rounds: 1)
    }

    /// Client threads, each with its own keep-alive connection.
    static let clients = 8

    static func run(quick: Bool) throws -> BenchmarkTable {
        let shape = quick ? Shape.quick : Shape.full
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-ingest-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let store = try LeakStore(path: directory.appendingPathComponent("server.sqlite").path)
        let token = try store.createProject("bench").secret
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.database = store.location
        configuration.logRequests = false
        let server = LeakServer(configuration: configuration, store: store)
        let port = try server.start()
        defer { server.stop(grace: .seconds(1)) }
        let rssBefore = ProcessMemory.current().hwmKiB

        let raw = try RawInsertBaseline(path: directory.appendingPathComponent("raw.sqlite").path)

        var large: [Double] = [], largeRaw: [Double] = []
        var small: [Double] = [], smallRaw: [Double] = []
        // Round 0 is the warm-up and is not kept.
        for round in 0...shape.rounds {
            let largeRuns = (0..<shape.largeRunsPerRound).map { makeRun(key: "large-\(round)-\($0)", index: $0, checks: 1_000) }
            let largeSeconds = try upload(largeRuns, ports: [port], token: token)
            let largeRawSeconds = try raw.insert(largeRuns)
            let smallRuns = (0..<shape.smallRunsPerRound).map { makeRun(key: "small-\(round)-\($0)", index: $0, checks: 10) }
            let smallSeconds = try upload(smallRuns, ports: [port], token: token)
            let smallRawSeconds = try raw.insert(smallRuns)
            guard round > 0 else { continue }
            large.append(Double(shape.largeRunsPerRound * 1_000) / largeSeconds)
            largeRaw.append(Double(shape.largeRunsPerRound * 1_000) / largeRawSeconds)
            small.append(Double(shape.smallRunsPerRound) / smallSeconds)
            smallRaw.append(Double(shape.smallRunsPerRound) / smallRawSeconds)
        }
        // Every check is counted in its key's state (a passing one has no row of its own).
        let stored = try store.read { try $0.scalarInt("SELECT coalesce(sum(checked_count), 0) FROM leak_states") ?? 0 }
        let expected = (shape.rounds + 1) * (shape.largeRunsPerRound * 1_000 + shape.smallRunsPerRound * 10)
        guard stored == expected else {
            throw KeepAliveConnection.Failure(description: "the server stored \(stored) checks, expected \(expected)")
        }
        let memory = ProcessMemory.current()

        var table = BenchmarkTable(title: "ingest — \(clients) client threads on keep-alive connections to an in-process "
            + "server over loopback (\(configuration.effectiveThreads) server threads, synchronous=normal); median of "
            + "\(shape.rounds) rounds after a warm-up; \(stored) checks stored and counted")
        func row(_ name: String, _ values: [Double], _ baseline: [Double], unit: String, target: Double) {
            let value = median(values), base = median(baseline)
            table.rows.append(.init(
                figure: name, value: "\(Int(value)) \(unit)", baseline: "\(Int(base)) \(unit) raw SQLite insert",
                ratio: "\(Int((value / base * 100).rounded()))%", target: "≥ \(Int(target)) \(unit), ≥ 40% of raw",
                met: value >= target && value >= 0.4 * base))
        }
        row("checks/s, 1,000-check runs", large, largeRaw, unit: "checks/s", target: 100_000)
        row("uploads/s, 10-check runs", small, smallRaw, unit: "uploads/s", target: 3_000)
        table.rows.append(.init(
            figure: "peak RSS (server and clients, one process)", value: "\(memory.hwmKiB / 1_024) MiB",
            baseline: "\(rssBefore / 1_024) MiB before the uploads", ratio: "", target: "", met: nil))
        return table
    }

    /// Sends every run from `clients` threads (thread i to `ports[i % ports.count]`: several
    /// servers behind a round-robin balancer); returns the wall-clock seconds. Any answer but
    /// 201 is an error: the figure counts stored uploads only.
    static func upload(_ runs: [RunRecord], ports: [Int], token: String) throws -> Double {
        let encoder = JSONEncoder()
        let bodies = try runs.map { try encoder.encode($0) }
        let next = Locked(0)
        let failures = Locked<[String]>([])
        let start = ContinuousClock.now
        onClientThreads(clients) { thread in
            let connection = KeepAliveConnection(port: ports[thread % ports.count])
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < bodies.count else { return }
                do {
                    let reply = try connection.request("POST", "/v1/projects/bench/runs", body: bodies[index],
                                                       headers: ["Authorization": "Bearer \(token)"])
                    if reply.status != 201 { failures.withLock { $0.append("\(reply.status) \(reply.text)") } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        let seconds = (ContinuousClock.now - start).nanoseconds / 1e9
        if let first = failures.withLock({ $0.first }) {
            throw KeepAliveConnection.Failure(description: "an upload failed: \(first)")
        }
        return seconds
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

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }
}
