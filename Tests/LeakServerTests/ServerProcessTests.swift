import Foundation
import LeakStore
import Synchronization
import Testing

/// The built binary, as an operator runs it.
@Suite("leakhistory-server binary")
struct ServerProcessTests {
    @Test func itStartsOnAFreshFolderServesAndStopsCleanlyOnSIGTERM() throws {
        let server = try ServerProcess()
        try server.start()
        let token = try #require(server.defaultToken, "\(server.stdout)")
        let client = HTTPClient(port: server.port)
        var run = RunFixture.run(project: "default")
        run["runKey"] = "process-1"
        let reply = try client.post("/v1/projects/default/runs", body: RunFixture.data(run),
                                    headers: ["Authorization": "Bearer \(token)"])
        #expect(reply.status == 201, "\(reply.text)")

        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        #expect(server.stdout.contains("leakhistory-server stopped"))
        #expect(server.stderr.contains("POST /v1/projects/default/runs 201"))
        // The checkpoint at shutdown moved everything into the main file: the log is empty, or gone
        // (SQLite removes it when the last connection closes).
        let wal = (try? FileManager.default.attributesOfItem(atPath: server.databasePath + "-wal"))?[.size] as? Int
        #expect(wal == nil || wal == 0, "the write-ahead log holds \(wal ?? 0) bytes after shutdown")
        let store = try LeakStore(path: server.databasePath)
        #expect(try store.read { try $0.scalarText("SELECT run_key FROM runs") } == "process-1")
    }

    @Test func sigtermLetsARequestInFlightFinishAndASecondSignalExitsAtOnce() throws {
        let server = try ServerProcess()
        try server.start()
        let token = try #require(server.defaultToken)
        var run = RunFixture.run(project: "default")
        run["runKey"] = "in-flight"
        let upload = try PartialUpload(port: server.port, path: "/v1/projects/default/runs", token: token,
                                       body: RunFixture.data(run))
        try waitUntilInFlight(server)
        // Wait until the server has stopped accepting: then the upload is the request in flight.
        server.signal(SIGTERM)
        while server.stdout.contains("stopping") == false { usleep(5_000) }
        #expect(throws: (any Error).self) { try HTTPClient(port: server.port).get("/healthz") }
        #expect(try upload.finish() == 201)
        #expect(server.waitForExit() == 0)
        let store = try LeakStore(path: server.databasePath)
        #expect(try store.read { try $0.scalarText("SELECT run_key FROM runs") } == "in-flight")

        // Again, but a second signal does not wait for the stalled upload.
        try server.start()
        let stalled = try PartialUpload(port: server.port, path: "/v1/projects/default/runs", token: token,
                                        body: RunFixture.data(run))
        try waitUntilInFlight(server)
        server.signal(SIGTERM)
        while server.stdout.components(separatedBy: "stopping").count < 3 { usleep(5_000) }
        server.signal(SIGINT)
        #expect(server.waitForExit() == 1)
        #expect(server.stderr.contains("second signal, exiting now"))
        withExtendedLifetime(stalled) {}
    }

    /// Polls `/metrics` until the held-open upload counts as in flight (besides the scrape itself).
    private func waitUntilInFlight(_ server: ServerProcess) throws {
        while true {
            let text = try HTTPClient(port: server.port).get("/metrics").text
            if text.contains("leakhistory_http_requests_in_flight 2\n") { return }
            usleep(5_000)
        }
    }

    @Test func aTokenRevokedFromTheCommandLineStopsWorkingInTheRunningServer() throws {
        let server = try ServerProcess()
        try server.start()
        let created = try server.command(["--database", "leaks.sqlite", "tokens", "create", "default"])
        let token = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = try #require(token.split(separator: "_").dropFirst().first.map(String.init))
        var run = RunFixture.run(project: "default")
        let client = HTTPClient(port: server.port)
        run["runKey"] = "before-revoke"
        #expect(try client.post("/v1/projects/default/runs", body: RunFixture.data(run),
                                headers: ["Authorization": "Bearer \(token)"]).status == 201)
        #expect(try server.command(["--database", "leaks.sqlite", "tokens", "revoke", id]).status == 0)
        run["runKey"] = "after-revoke"
        let refused = try client.post("/v1/projects/default/runs", body: RunFixture.data(run),
                                      headers: ["Authorization": "Bearer \(token)"])
        #expect(refused.status == 401)
        #expect(refused.error?.message.contains("token \(id) was revoked") == true)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }

    @Test func projectAndTokenCommandsWorkOnTheConfiguredDatabase() throws {
        let server = try ServerProcess()
        let created = try server.command(["--database", "leaks.sqlite", "projects", "create", "web"])
        #expect(created.status == 0, "\(created.stderr)")
        // Each admin command names the database it opened, and says when it created it.
        #expect(created.stderr.hasPrefix("Database: \(URL(fileURLWithPath: server.databasePath).standardizedFileURL.path) (did not exist: created it;"))
        let first = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(first.hasPrefix("lh_1_"))
        let second = try server.command(["--database", "leaks.sqlite", "tokens", "create", "web", "--read"])
        #expect(second.stdout.hasPrefix("lh_2_"))
        #expect(try server.command(["--database", "leaks.sqlite", "tokens", "revoke", "1"]).status == 0)
        let list = try server.command(["--database", "leaks.sqlite", "tokens", "list", "web"])
        let rows = list.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: "\t") }
        #expect(rows.map { "\($0[0]) \($0[1]) \($0[3] == "-" ? "live" : "revoked")" } == ["1 write revoked", "2 read live"])

        let store = try LeakStore(path: server.databasePath)
        #expect(try store.verifyToken(first) == .revoked(id: 1))

        let duplicate = try server.command(["--database", "leaks.sqlite", "projects", "create", "web"])
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr == "Database: \(URL(fileURLWithPath: server.databasePath).standardizedFileURL.path)\n"
                + "Error: a project named \"web\" already exists\n")
        let typo = try server.command(["--databse", "x"])
        #expect(typo.status == 2)
        #expect(typo.stderr.hasPrefix("Error: Unknown option '--databse'. Did you mean '--database'?\n"))
        #expect(typo.stderr.contains("See 'leakhistory-server --help'."))
    }

    @Test func everyAcknowledgedUploadSurvivesSIGKILL() throws {
        let server = try ServerProcess()
        try server.start()
        let token = try #require(server.defaultToken)
        let client = HTTPClient(port: server.port)
        let uploads = UploadLoop()
        // A thread of its own: the test's cooperative threads may all be busy on 2 cores.
        let uploader = Thread {
            defer { uploads.finish() }
            for index in 0..<100_000 {
                var run = RunFixture.run(project: "default")
                run["runKey"] = "durable-\(index)"
                guard let reply = try? client.post("/v1/projects/default/runs", body: RunFixture.data(run),
                                                   headers: ["Authorization": "Bearer \(token)"]),
                      (200..<300).contains(reply.status)
                else { return }
                uploads.acknowledge("durable-\(index)")
            }
        }
        uploader.start()
        // Kill it mid-stream, once a good number of uploads have been answered.
        while uploads.count < 150 && !uploads.isFinished { usleep(2_000) }
        server.signal(SIGKILL)
        uploads.waitUntilFinished()
        #expect(server.waitForExit() != 0)
        let answered = uploads.acknowledged

        try server.start()
        let store = try LeakStore(path: server.databasePath)
        let stored = try store.read { db in
            var keys = Set<String>()
            try db.query("SELECT run_key FROM runs") { keys.insert($0.string(at: 0) ?? "") }
            return keys
        }
        let lost = answered.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "acknowledged but lost after SIGKILL: \(lost.prefix(10))")
        #expect(answered.count >= 150)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
    }
}

/// The keys of uploads the server answered with a 2xx, shared with the uploading thread.
private final class UploadLoop: Sendable {
    private let state = Mutex<(keys: [String], finished: Bool)>(([], false))
    private let done = DispatchSemaphore(value: 0)

    func acknowledge(_ key: String) { state.withLock { $0.keys.append(key) } }
    func finish() {
        state.withLock { $0.finished = true }
        done.signal()
    }
    func waitUntilFinished() { done.wait() }
    var count: Int { state.withLock { $0.keys.count } }
    var isFinished: Bool { state.withLock { $0.finished } }
    var acknowledged: [String] { state.withLock { $0.keys } }
}
