import Foundation
import LoopbackClient
import LeakReport
#if canImport(Glibc)
import Glibc
#endif

/// `leakhistory-bench load`: the real server binary on loopback, 16 client threads on
/// keep-alive connections for a fixed time — 70% uploads of 100-check runs, 20% diffs, 10%
/// trends — then requests, p50/p99/max latency per route, errors, and the server's RSS at the
/// start, the middle and the end. Exits 1 on any error.
enum LoadTest {
    static let clients = 16
    /// Commits on `main` seeded before the clock starts; uploads and queries pick among them.
    static let commits = 200

    /// Latencies (ns) per route and the errors one client saw.
    struct ClientTally: Sendable {
        var latencies: [String: [Double]] = [:]
        var errors: [String] = []
    }

    static func run(seconds: Int) throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-load-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("load.sqlite").path
        let token = try ServerBinary.createProject("load", database: database)
        let server = try ServerBinary(database: database)
        defer { server.stop() }
        let port = server.port

        // One run per commit first, so that every diff and trend has history to read.
        let seed = KeepAliveConnection(port: port)
        let encoder = JSONEncoder()
        for index in 0..<commits {
            let reply = try seed.request("POST", "/v1/projects/load/runs", body: try encoder.encode(run(key: "seed-\(index)", commit: index)),
                                         headers: ["Authorization": "Bearer \(token)"])
            guard reply.status == 201 else { throw ServerBinary.Failure(description: "seeding failed: \(reply.status) \(reply.text)") }
        }

        let memoryAtStart = server.memory
        let tallies = Locked<[ClientTally]>([])
        let deadline = ContinuousClock.now + .seconds(seconds)
        let middle = Locked<ProcessMemory?>(nil)
        let serverPID = server.pid
        let sampler = Thread {
            Thread.sleep(forTimeInterval: Double(seconds) / 2)
            middle.withLock { $0 = ProcessMemory.of(pid: serverPID) }
        }
        sampler.start()
        print("load: \(clients) clients on keep-alive connections for \(seconds) s against leakhistory-server (pid \(server.pid)) "
            + "on 127.0.0.1:\(port); 70% uploads of 100-check runs, 20% diffs, 10% trends; \(commits) commits seeded")
        onClientThreads(clients) { client in
            let tally = traffic(client: client, port: port, token: token, until: deadline)
            tallies.withLock { $0.append(tally) }
        }
        let memoryAtEnd = server.memory
        let serverAlive = server.isRunning

        var latencies: [String: [Double]] = [:]
        var errors: [String] = []
        for tally in tallies.value {
            latencies.merge(tally.latencies) { $0 + $1 }
            errors += tally.errors
        }
        let total = latencies.values.map(\.count).reduce(0, +)
        print("  \(total) requests in \(seconds) s (\(total / max(seconds, 1))/s), errors: \(errors.count)")
        func cell(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        print("  " + ["route", "requests", "p50", "p99", "max"].map { cell($0, 10) }.joined())
        for route in ["upload", "diff", "trend"] {
            let values = (latencies[route] ?? []).sorted()
            guard let slowest = values.last else { continue }
            func at(_ p: Double) -> String { formatNanoseconds(values[min(values.count - 1, Int(Double(values.count) * p))]) }
            print("  " + [route, "\(values.count)", at(0.5), at(0.99), formatNanoseconds(slowest)].map { cell($0, 10) }.joined())
        }
        func mib(_ memory: ProcessMemory?) -> String { memory.map { "\($0.rssKiB / 1_024) MiB" } ?? "gone" }
        print("  server RSS: start \(mib(memoryAtStart)), middle \(mib(middle.value)), end \(mib(memoryAtEnd)); "
            + "peak \(memoryAtEnd.map { "\($0.hwmKiB / 1_024) MiB" } ?? "?")")
        for error in Set(errors).prefix(5) { print("  ERROR: \(error)") }
        if !serverAlive { print("  FAILED: the server exited during the load; its stderr:\n\(server.log)") }
        return errors.isEmpty && serverAlive && total > 0
    }

    /// One client's loop: a request mix drawn from its own generator until the deadline.
    private static func traffic(client: Int, port: Int, token: String, until deadline: ContinuousClock.Instant) -> ClientTally {
        var tally = ClientTally()
        var random = SplitMix64(seed: UInt64(client + 1))
        let connection = KeepAliveConnection(port: port, timeoutSeconds: 30)
        let encoder = JSONEncoder()
        var sequence = 0
        let clock = ContinuousClock()
        while clock.now < deadline {
            let dice = random.next(below: 100)
            let head = 1 + Int(random.next(below: UInt64(commits - 1)))
            let route: String, method: String, path: String
            var body: Data?
            if dice < 70 {
                sequence += 1
                route = "upload"; method = "POST"; path = "/v1/projects/load/runs"
                body = try? encoder.encode(run(key: "load-\(client)-\(sequence)", commit: head))
            } else if dice < 90 {
                route = "diff"; method = "GET"
                path = "/v1/projects/load/diff?base=\(sha(head - 1))&head=\(sha(head))&environment=linux-swift6.3"
            } else {
                route = "trend"; method = "GET"
                path = "/v1/projects/load/types/App.Type\(random.next(below: 500))/trend?branch=main&limit=50&environment=linux-swift6.3"
            }
            let start = clock.now
            do {
                let reply = try connection.request(method, path, body: body, headers: ["Authorization": "Bearer \(token)"])
                tally.latencies[route, default: []].append((clock.now - start).nanoseconds)
                if !(200..<300).contains(reply.status) { tally.errors.append("\(route) \(reply.status): \(reply.text.prefix(300))") }
            } catch {
                tally.errors.append("\(route): \(error)")
            }
        }
        return tally
    }

    /// A 100-check run on the `index`-th commit of `main`, whose first parent is the one before.
    private static func run(key: String, commit index: Int) -> RunRecord {
        var run = IngestBenchmark.makeRun(key: key, index: index, checks: 100, project: "load")
        run.commit = sha(index)
        run.parents = index == 0 ? [] : [sha(index - 1)]
        return run
    }

    private static func sha(_ index: Int) -> String { QueriesBenchmark.commitSHA(5_000_000 + index) }
}
