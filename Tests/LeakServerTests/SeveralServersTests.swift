import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LeakStore
import Testing

/// Three `leakhistory-server` processes on one PostgreSQL behind a client that fails over (what
/// a load balancer does): SIGKILL one of them during uploads — no acknowledged run is lost, the
/// other two keep serving, and a run retried elsewhere after the kill is stored once.
@Suite("Several servers on PostgreSQL")
struct SeveralServersTests {
    @Test(arguments: TestEngine.postgresOnly)
    func killingOneOfThreeServersLosesNoAcknowledgedRun(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let servers = try (0..<3).map { _ in try ServerProcess() }
        // Started together: they migrate once, under the advisory lock.
        try servers.first!.start(["--database", database.location])
        let token = try #require(servers.first!.defaultToken)
        for server in servers.dropFirst() { try server.start(["--database", database.location]) }
        let ports = servers.map(\.port)
        let acknowledged = Collected<String>()
        let problems = Collected<String>()
        let done = DispatchSemaphore(value: 0)
        let runs = 300
        for thread in 0..<3 {
            Thread {
                defer { done.signal() }
                for index in stride(from: thread, to: runs, by: 3) {
                    var run = RunFixture.run(project: "default")
                    run["runKey"] = "killed-\(index)"
                    let body = RunFixture.data(run)
                    // Round-robin, moving on to the next server when one does not answer.
                    var stored = false
                    for attempt in 0..<30 where !stored {
                        let port = ports[(index + attempt) % ports.count]
                        guard let reply = try? HTTPClient(port: port).post(
                            "/v1/projects/default/runs", body: body, headers: ["Authorization": "Bearer \(token)"])
                        else { continue }
                        if reply.status == 200 || reply.status == 201 {
                            stored = true
                        } else if reply.status != 503 {
                            problems.append("killed-\(index): \(reply.status) \(reply.text)")
                            break
                        }
                    }
                    if stored { acknowledged.append("killed-\(index)") } else { problems.append("killed-\(index) never stored") }
                }
            }.start()
        }
        while acknowledged.values.count < 60 { usleep(2_000) }
        servers[1].signal(SIGKILL)
        for _ in 0..<3 { done.wait() }
        #expect(servers[1].waitForExit() != 0)
        #expect(problems.values.isEmpty, "\(problems.values.prefix(5))")
        #expect(acknowledged.values.count == runs)

        let store = try database.open()
        let stored = try store.read { db in
            var keys: [String] = []
            try db.query("SELECT run_key FROM runs") { keys.append($0.string(at: 0) ?? "") }
            return keys
        }
        #expect(Set(stored) == Set(acknowledged.values), "every acknowledged run, and nothing else")
        #expect(stored.count == Set(stored).count, "each run once")
        let checks = try store.read { try $0.scalarInt("SELECT count(*) FROM checks") }
        #expect(checks == Int64(runs * 3), "every stored run whole")
        for server in [servers[0], servers[2]] {
            #expect(try HTTPClient(port: server.port).get("/healthz").status == 200)
            server.signal(SIGTERM)
            #expect(server.waitForExit() == 0)
        }
    }
}
