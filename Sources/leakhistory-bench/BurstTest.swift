import Foundation
import LeakReport
import LoopbackClient
#if canImport(Glibc)
import Glibc
#endif

/// `leakhistory-bench burst [--quick]`: a CI fleet behind one NAT address uploading at the same
/// moment — 200 `leakhistory upload` processes (12 with `--quick`), each of a 2,000-check run,
/// started together from 127.0.0.1 against the server binary; then the same through a
/// forwarding proxy the server trusts (`trustedProxies`). Counts what the fleet saw: uploads
/// stored, busy answers (503 with Retry-After) the CLI waited out, and connections closed without
/// any answer (the CLI notes each retry on stderr). Exits 1 unless every upload is stored and no
/// connection was closed unanswered.
enum BurstTest {
    static let checks = 2_000

    static func run(quick: Bool) throws -> Bool {
        // BURST_UPLOADS: another fleet size, to look into one.
        let uploads = ProcessInfo.processInfo.environment["BURST_UPLOADS"].flatMap(Int.init) ?? (quick ? 12 : 200)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-burst-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cli = ServerBinary.executable.deletingLastPathComponent().appendingPathComponent("leakhistory").path
        guard FileManager.default.isExecutableFile(atPath: cli) else {
            throw AttackTest.Failure("no leakhistory binary beside this one at \(cli); build it first: swift build -c release --product leakhistory")
        }
        // One report of a whole suite's run; each upload sends it for a commit of its own.
        let report = directory.appendingPathComponent("leakcheck.ndjson").path
        let writer = try NDJSONWriter(path: report)
        for check in CIUploads.run(key: "suite", index: 0, checks: checks, project: "app").checks { try writer.append(check) }

        var ok = true
        for proxied in [false, true] {
            let database = directory.appendingPathComponent("burst-\(proxied).sqlite").path
            let token = try ServerBinary.createProject("app", database: database)
            let server = try ServerBinary(database: database, extraSettings: proxied
                ? "\"trustedProxies\": [\"127.77.0.0/16\"]" : "")
            defer { server.stop() }
            let proxy = proxied ? try ForwardingProxy(upstreamPort: server.port, source: AttackTest.proxySource) : nil
            defer { proxy?.stop() }
            let port = proxy?.port ?? server.port
            let environment = ["LEAKHISTORY_SERVER": "http://127.0.0.1:\(port)", "LEAKHISTORY_TOKEN": token,
                               "LEAKHISTORY_PROJECT": "app", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                               "HOME": directory.path]
            // Launched one after another from this thread (Foundation's Process is not safe to
            // start from many threads at once), each writing to files rather than pipes; a launch
            // takes a fraction of what an upload does, so they all run together.
            let began = ContinuousClock.now
            var launched: [(process: Process, stdout: URL, stderr: URL)] = []
            for index in 0..<uploads {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: cli)
                process.arguments = ["upload", report, "--commit", QueriesBenchmark.commitSHA(5_000_000 + index), "--branch", "main",
                                     "--run-key", "burst-\(index)"]
                process.currentDirectoryURL = directory
                process.environment = environment
                let out = directory.appendingPathComponent("upload-\(proxied)-\(index).out")
                let err = directory.appendingPathComponent("upload-\(proxied)-\(index).err")
                _ = FileManager.default.createFile(atPath: out.path, contents: nil)
                _ = FileManager.default.createFile(atPath: err.path, contents: nil)
                process.standardOutput = try FileHandle(forWritingTo: out)
                process.standardError = try FileHandle(forWritingTo: err)
                process.standardInput = FileHandle.nullDevice
                try process.run()
                launched.append((process, out, err))
            }
            var all: [ChildProcess.Result] = []
            defer { launched.forEach { if $0.process.isRunning { $0.process.terminate() } } }
            for (process, out, err) in launched {
                process.waitUntilExit()
                all.append(ChildProcess.Result(status: process.terminationStatus,
                                               stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                                               stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? ""))
            }
            let elapsed = ContinuousClock.now - began
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let notes = all.flatMap { $0.stderr.split(separator: "\n") }
            let busy = notes.filter { $0.contains("(busy: Retry-After") }.count
            let unanswered = notes.filter { $0.hasPrefix("Note: no answer") }.count
            let succeeded = all.filter { $0.status == 0 }.count
            let metrics = try serverMetrics(port: server.port)
            let stored = metrics["leakhistory_runs_ingested_total"] ?? -1
            let retried = all.filter { $0.stderr.contains("Note:") }.count
            print("burst\(proxied ? " behind a proxy (trustedProxies set)" : ""): \(uploads) simultaneous `leakhistory upload` of "
                + "\(checks) checks from 127.0.0.1: \(stored) stored, \(succeeded) exited 0, \(retried) retried at least once; "
                + "\(busy) busy answers (503 + Retry-After) waited out, \(unanswered) connections closed without an answer; "
                + String(format: "%.1f s in all", seconds)
                + "; the server's count: \(metrics["leakhistory_http_overloaded_total"] ?? -1) answered 503, "
                + "\(metrics["leakhistory_http_stalled_gave_way_total"] ?? -1) stalled connections pushed out, "
                + "\(metrics["leakhistory_http_deadline_cutoffs_total"] ?? -1) cut off at the deadline")
            for failure in all.filter({ $0.status != 0 }).prefix(3) { print("    failed: \(failure.stderr.suffix(300))") }
            for note in Set(notes.filter { $0.hasPrefix("Note: no answer") }).prefix(3) { print("    \(note)") }
            if stored != uploads || succeeded != uploads {
                print("  FAILED: \(uploads - stored) uploads not stored")
                ok = false
            }
            if unanswered > 0 {
                print("  FAILED: \(unanswered) connections closed without an answer")
                ok = false
            }
        }
        return ok
    }

    /// The server's `/metrics` counters without labels, by name.
    private static func serverMetrics(port: Int) throws -> [String: Int] {
        let text = try KeepAliveConnection(port: port, timeoutSeconds: 10).request("GET", "/metrics").text
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.contains("{") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }
}
