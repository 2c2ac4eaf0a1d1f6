import Foundation
import GzipCoding
import LoopbackClient
import LeakReport

/// The upload client of the ingest suite, run as a process of its own
/// (`leakhistory-bench ingest-client …`) so that the server's figures carry none of the
/// client's work: it builds the runs, encodes every body before the clock starts, sends them
/// from its threads on keep-alive connections and prints the seconds the sending took.
///
/// The same client drives LeakHistory (`POST /v1/projects/bench/runs`, one run a request) and
/// the peer (`POST /peer/checks/-/insert`, the same run's checks as rows, one request a run).
enum IngestClient {
    enum Target: String {
        case leakhistory, datasette
    }

    /// What the runs are like.
    enum Shape: String {
        /// `CIUploads`: a test suite run on each new commit, as CI uploads (the rounds).
        case ci
        /// A very large run (`IngestBenchmark.makeRun`: keys drawn at random from a million) on
        /// the commit of upload `index` of the 1,000-check CI stream: one the rounds uploaded to,
        /// or a new one past them.
        case huge
    }

    /// The runs `prefix` names, the same in every process: uploads `firstIndex`, `firstIndex + 1`, …
    /// of the shape's stream.
    static func runs(prefix: String, uploads: Int, checks: Int, firstIndex: Int = 0, shape: Shape = .ci) -> [RunRecord] {
        (0..<uploads).map { offset in
            let key = "\(prefix)-\(offset)", index = firstIndex + offset
            switch shape {
            case .ci:
                return CIUploads.run(key: key, index: index, checks: checks)
            case .huge:
                var run = IngestBenchmark.makeRun(key: key, index: index, checks: checks)
                (run.commit, run.parents) = CIUploads.commit(index: index, checks: 1_000)
                return run
            }
        }
    }

    /// Starts the client process; `finish` waits for it.
    static func start(target: Target, port: Int, token: String, prefix: String, uploads: Int, checks: Int,
                      threads: Int = IngestBenchmark.clients, firstIndex: Int = 0, shape: Shape = .ci) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        process.arguments = ["ingest-client", target.rawValue, "\(port)", token, prefix, "\(uploads)", "\(checks)", "\(threads)",
                             "\(firstIndex)", shape.rawValue]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// Waits for the client process; returns the seconds its uploads took.
    static func finish(_ process: Process) throws -> Double {
        let output = (process.standardOutput as! Pipe).fileHandleForReading.readDataToEndOfFile()
        let errors = (process.standardError as! Pipe).fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let seconds = Double(text) else {
            throw BenchError("the ingest client failed (exit \(process.terminationStatus)): \(text) \(String(decoding: errors, as: UTF8.self))")
        }
        return seconds
    }

    /// Runs a client process to its end; returns the seconds its uploads took.
    static func spawn(target: Target, port: Int, token: String, prefix: String, uploads: Int, checks: Int,
                      firstIndex: Int = 0) throws -> Double {
        try finish(start(target: target, port: port, token: token, prefix: prefix, uploads: uploads, checks: checks,
                         firstIndex: firstIndex))
    }

    /// `ingest-client TARGET PORT TOKEN PREFIX UPLOADS CHECKS THREADS [FIRST_INDEX [ci|huge]]`,
    /// in the child: prints the seconds, or fails with the first refusal.
    static func main(_ arguments: [String]) -> Int32 {
        guard (7...9).contains(arguments.count), let target = Target(rawValue: arguments[0]),
              let port = Int(arguments[1]), let uploads = Int(arguments[4]), let checks = Int(arguments[5]),
              let threads = Int(arguments[6]), let firstIndex = arguments.count >= 8 ? Int(arguments[7]) : 0,
              let shape = arguments.count == 9 ? Shape(rawValue: arguments[8]) : .ci else {
            FileHandle.standardError.write(Data(
                "Error: expected ingest-client TARGET PORT TOKEN PREFIX UPLOADS CHECKS THREADS [FIRST_INDEX [ci|huge]]\n".utf8))
            return 2
        }
        do {
            let runs = runs(prefix: arguments[3], uploads: uploads, checks: checks, firstIndex: firstIndex, shape: shape)
            let seconds: Double
            switch target {
            case .leakhistory:
                let encoder = JSONEncoder()
                let bodies = try runs.map { run -> (Data, Bool) in
                    let body = try encoder.encode(run)
                    // Past the body limit (a 100,000-check run), as the CLI sends every upload: gzipped.
                    return body.count > 16 * 1024 * 1024 ? (try Gzip.compress(body), true) : (body, false)
                }
                seconds = try send(bodies, path: "/v1/projects/bench/runs", ports: [port], token: arguments[2], threads: threads)
            case .datasette:
                let bodies = try runs.map { (try DatasettePeer.insertBody($0), false) }
                seconds = try send(bodies, path: "/peer/checks/-/insert", ports: [port], token: arguments[2], threads: threads)
            }
            print(seconds)
            return 0
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            return 1
        }
    }

    /// Sends every body from `threads` threads (thread i to `ports[i % ports.count]`: several
    /// servers behind a round-robin balancer); returns the wall-clock seconds. Any answer but
    /// 201 is an error: the figure counts stored uploads only. Each thread is a CI runner of its
    /// own, from a loopback address of its own (127.0.1.1, 127.0.1.2, …): the server's share of
    /// workers per client address (`perClientWorkers`, 2) is for one client that asks too much,
    /// and would otherwise serve the whole fleet as that one client.
    static func send(_ bodies: [Data], path: String, ports: [Int], token: String,
                     threads: Int = IngestBenchmark.clients) throws -> Double {
        try send(bodies.map { ($0, false) }, path: path, ports: ports, token: token, threads: threads)
    }

    private static func send(_ bodies: [(Data, Bool)], path: String, ports: [Int], token: String, threads: Int) throws -> Double {
        let next = Locked(0)
        let failures = Locked<[String]>([])
        let start = ContinuousClock.now
        onClientThreads(threads) { thread in
            let connection = KeepAliveConnection(port: ports[thread % ports.count], timeoutSeconds: 120,
                                                 source: "127.0.1.\(thread % 250 + 1)")
            while true {
                let index = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard index < bodies.count else { return }
                var headers = ["Authorization": "Bearer \(token)"]
                if bodies[index].1 { headers["Content-Encoding"] = "gzip" }
                do {
                    let reply = try connection.request("POST", path, body: bodies[index].0, headers: headers)
                    if reply.status != 201 { failures.withLock { $0.append("\(reply.status) \(reply.text.prefix(300))") } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        let seconds = (ContinuousClock.now - start).nanoseconds / 1e9
        if let first = failures.withLock({ $0.first }) { throw BenchError("an upload failed: \(first)") }
        return seconds
    }
}
