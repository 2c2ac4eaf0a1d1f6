import Foundation
import LoopbackClient
import LeakReport
import LeakStore
#if canImport(Glibc)
import Glibc
#endif

/// `leakhistory-bench crash-test`: the real server binary killed with SIGKILL at a random moment
/// while several clients upload, twenty times; then a full disk. Exits 1 when an acknowledged
/// run is missing, a run is half-stored, the database is damaged, or a full disk is not
/// answered with 507/503 and a message.
enum CrashTest {
    static let cycles = 20
    static let clients = 4

    /// What the clients saw: runs acknowledged with a 2xx (key → checks sent), and runs whose
    /// answer never came (the server may or may not have stored them).
    struct Outcomes: Sendable {
        var acknowledged: [String: Int] = [:]
        var inDoubt: Set<String> = []
        var refused: [String] = []
    }

    static func run() throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-crash-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("crash.sqlite").path
        let token = try ServerBinary.createProject("crash", database: database)
        var ok = true

        print("kill -9: \(cycles) cycles, \(clients) clients uploading runs of 20 to 400 checks; SIGKILL after 0.1 to 1.5 s")
        let outcomes = Locked(Outcomes())
        var generator = SystemRandomNumberGenerator()
        for cycle in 1...cycles {
            let server = try ServerBinary(database: database)
            let stop = Locked(false)
            let before = outcomes.value.acknowledged.count
            let delay = Double.random(in: 0.1...1.5, using: &generator)
            let port = server.port
            // The clients run until the server dies under them; the kill comes from here.
            let clientsDone = DispatchSemaphore(value: 0)
            Thread {
                onClientThreads(clients) { client in
                    upload(port: port, token: token, prefix: "c\(cycle)-\(client)", firstCommit: (cycle * clients + client) * 100_000,
                           stop: stop, outcomes: outcomes)
                }
                clientsDone.signal()
            }.start()
            Thread.sleep(forTimeInterval: delay)
            server.kill9()
            stop.withLock { $0 = true }
            clientsDone.wait()
            let after = outcomes.value.acknowledged.count
            print("  cycle \(cycle): killed after \(Int(delay * 1000)) ms; \(after - before) runs acknowledged this cycle")
        }

        // A last start: the server must open the database the kills left and serve it.
        let recovered = try ServerBinary(database: database)
        let health = try KeepAliveConnection(port: recovered.port).request("GET", "/healthz")
        recovered.stop()
        if health.status != 200 {
            print("  FAILED: after the kills the server answers /healthz with \(health.status): \(health.text)")
            ok = false
        }
        ok = verify(database: database, outcomes: outcomes.value, label: "after \(cycles) kills") && ok
        if outcomes.value.acknowledged.isEmpty {
            print("  FAILED: no upload was acknowledged, so nothing was tested")
            ok = false
        }
        ok = try fullDisk(directory: directory) && ok
        return ok
    }

    /// Uploads runs with fresh keys until `stop` is set or the connection fails after it, each
    /// run on a commit of its own from `firstCommit` on (what `verify` counts a run's checks by;
    /// every client once started from the same commit, and the kill -9 test failed on runs that
    /// were all there: their commit's states held several clients' runs).
    private static func upload(port: Int, token: String, prefix: String, firstCommit: Int, stop: Locked<Bool>,
                               outcomes: Locked<Outcomes>) {
        let connection = KeepAliveConnection(port: port, timeoutSeconds: 10)
        let encoder = JSONEncoder()
        var sequence = 0
        while !stop.value {
            sequence += 1
            let key = "\(prefix)-\(sequence)"
            let checks = 20 + (sequence * 37) % 381
            let run = IngestBenchmark.makeRun(key: key, index: firstCommit + sequence, checks: checks, project: "crash")
            guard let body = try? encoder.encode(run) else { return }
            do {
                let reply = try connection.request("POST", "/v1/projects/crash/runs", body: body,
                                                   headers: ["Authorization": "Bearer \(token)"])
                if (200..<300).contains(reply.status) {
                    outcomes.withLock { $0.acknowledged[key] = checks }
                } else {
                    outcomes.withLock { $0.refused.append("\(reply.status) \(reply.text)") }
                }
            } catch {
                // No answer: the server died before, during or after storing it.
                outcomes.withLock { _ = $0.inDoubt.insert(key) }
                // Before the kill a failure is unexpected; let the report show it, and stop.
                return
            }
        }
    }

    /// Every acknowledged run stored whole; no run anywhere with fewer checks than its count (each
    /// run has a commit of its own, so the checks its commit's key states count are the run's);
    /// `PRAGMA integrity_check` ok. Prints the counts.
    @discardableResult
    static func verify(database: String, outcomes: Outcomes, label: String) -> Bool {
        do {
            let db = try SQLiteConnection(path: database, mode: .readOnly)
            var stored: [String: (count: Int, rows: Int)] = [:]
            try db.query("""
                SELECT r.run_key, r.check_count,
                       (SELECT coalesce(sum(ls.checked_count), 0) FROM leak_states ls WHERE ls.commit_id = r.commit_id)
                FROM runs r
                """) { row in
                stored[row.string(at: 0) ?? ""] = (row.int(at: 1), row.int(at: 2))
            }
            let integrity = try db.scalarText("PRAGMA integrity_check") ?? "(no answer)"
            let missing = outcomes.acknowledged.filter { key, checks in stored[key]?.rows != checks }
            let halfStored = stored.filter { $0.value.count != $0.value.rows }
            let doubtStored = outcomes.inDoubt.filter { stored[$0] != nil }.count
            print("""
                  \(label): \(outcomes.acknowledged.count) runs acknowledged (\(outcomes.acknowledged.values.reduce(0, +)) checks), \
                \(stored.count) runs stored (\(stored.values.map(\.rows).reduce(0, +)) checks); \
                acknowledged but missing or incomplete: \(missing.count); half-stored: \(halfStored.count); \
                unanswered when the server died: \(outcomes.inDoubt.count) (\(doubtStored) of them stored, whole); \
                integrity_check: \(integrity)
                """)
            for (key, checks) in missing.prefix(5) {
                print("    MISSING \(key): \(checks) checks acknowledged, stored \(stored[key].map { "\($0.rows)" } ?? "nothing")")
            }
            return missing.isEmpty && halfStored.isEmpty && integrity == "ok"
        } catch {
            print("  FAILED: cannot read \(database): \(error)")
            return false
        }
    }

    /// A 4 MiB tmpfs holds the database: uploads until the disk is full must be refused with
    /// 507 or 503 and a message, the server must keep answering, nothing acknowledged may be
    /// lost, and once space is freed uploads succeed again.
    private static func fullDisk(directory: URL) throws -> Bool {
        let mountPoint = directory.appendingPathComponent("small-disk").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard shell("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint) == 0 else {
            print("full disk: SKIPPED — cannot mount a tmpfs here (needs root); nothing was checked")
            return true
        }
        defer { _ = shell("umount", mountPoint) }
        let database = mountPoint + "/full.sqlite"
        let token = try ServerBinary.createProject("crash", database: database)
        let server = try ServerBinary(database: database)
        defer { server.stop() }
        // Most of the space goes to a filler file that is removed at the end, to show recovery.
        let filler = mountPoint + "/filler"
        _ = shell("dd", "if=/dev/zero", "of=\(filler)", "bs=1M", "count=2", "status=none")

        var outcomes = Outcomes()
        var statuses: [Int: Int] = [:]
        var refusal = ""
        let connection = KeepAliveConnection(port: server.port, timeoutSeconds: 10)
        let encoder = JSONEncoder()
        var fullAnswers = 0
        for sequence in 1...400 where fullAnswers < 5 {
            let key = "disk-\(sequence)"
            let body = try encoder.encode(IngestBenchmark.makeRun(key: key, index: sequence, checks: 200, project: "crash"))
            do {
                let reply = try connection.request("POST", "/v1/projects/crash/runs", body: body,
                                                   headers: ["Authorization": "Bearer \(token)"])
                statuses[reply.status, default: 0] += 1
                if (200..<300).contains(reply.status) {
                    outcomes.acknowledged[key] = 200
                } else if reply.status == 507 || reply.status == 503 {
                    fullAnswers += 1
                    refusal = "\(reply.status) \(reply.text)"
                } else {
                    refusal = "\(reply.status) \(reply.text)"
                    break
                }
            } catch {
                outcomes.inDoubt.insert(key)
                refusal = "no answer: \(error)"
                break
            }
        }
        let summary = statuses.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: ", ")
        print("full disk (4 MiB tmpfs, 2 MiB of it a filler file): uploads of 200-check runs answered \(summary)")
        print("  refusal: \(refusal)")
        var ok = fullAnswers > 0 && refusal.contains("\"message\"")
        if !ok { print("  FAILED: a full disk was not answered with 507/503 and a message") }

        let health = try? connection.request("GET", "/healthz")
        let types = try? connection.request("GET", "/v1/projects/crash/types?branch=main&environment=linux-swift6.3")
        print("  while full: server running \(server.isRunning), /healthz \(health?.status ?? 0), types \(types?.status ?? 0)")
        if !server.isRunning || health?.status != 200 || types?.status != 200 {
            print("  FAILED: the server did not keep serving on a full disk")
            ok = false
        }

        try FileManager.default.removeItem(atPath: filler)
        let again = try connection.request("POST", "/v1/projects/crash/runs",
                                           body: try encoder.encode(IngestBenchmark.makeRun(key: "disk-after", index: 0, checks: 200, project: "crash")),
                                           headers: ["Authorization": "Bearer \(token)"])
        print("  space freed: the next upload answered \(again.status)")
        if again.status == 201 { outcomes.acknowledged["disk-after"] = 200 } else { ok = false }
        server.stop()
        return verify(database: database, outcomes: outcomes, label: "full disk") && ok
    }

    private static func shell(_ arguments: String...) -> Int32 {
        let result = try? ChildProcess.run("/usr/bin/env", arguments,
                                           in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                                           environment: ProcessInfo.processInfo.environment)
        return result?.status ?? -1
    }
}
