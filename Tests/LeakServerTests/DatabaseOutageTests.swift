import Foundation
import LeakReport
import LeakStore
import Testing

/// PostgreSQL going away under a running server (a restart, an outage): the server stays up,
/// says 503 with Retry-After to uploads and to `/healthz`, stores nothing half, and serves
/// again on its own once the database is back.
@Suite("PostgreSQL outages")
struct DatabaseOutageTests {
    @Test(arguments: TestEngine.postgresOnly)
    func uploadsDuringAnOutageGet503AndAllLandOnceTheDatabaseIsBack(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine, ownRole: true)
        // Used by the uploader thread and by this one, each request on its own connection.
        nonisolated(unsafe) let server = try TestServer(database: database)
        let runs = 30
        let unavailable = Collected<Int>()
        let failures = Collected<String>()
        let uploaded = DispatchSemaphore(value: 0)
        let uploader = Thread {
            for index in 0..<runs {
                let body = HistoryFixture.runBody(commit: HistoryFixture.sha(index + 1), runKey: "outage-\(index)",
                                                  checks: [.leaked("S/s()", "App.Model")])
                var stored = false
                for _ in 0..<400 where !stored {
                    guard let reply = try? server.upload(body) else { usleep(20_000); continue }
                    switch reply.status {
                    case 200, 201: stored = true
                    case 503:
                        if reply.headers["retry-after"] == nil { failures.append("a 503 without Retry-After") }
                        unavailable.append(index)
                        usleep(20_000)
                    default: failures.append("run \(index): \(reply.status) \(reply.text)")
                    }
                }
                if !stored { failures.append("run \(index) never stored") }
                if index == 5 { uploaded.signal() }
            }
            uploaded.signal()
        }
        uploader.start()
        uploaded.wait()
        try database.cutOff()
        // While it is gone: the health check and the uploads say so.
        var health = try server.client.get("/healthz")
        for _ in 0..<50 where health.status == 200 {
            usleep(20_000)
            health = try server.client.get("/healthz")
        }
        #expect(health.status == 503)
        #expect(health.headers["retry-after"] != nil)
        usleep(300_000)
        try database.restore()
        uploaded.wait()
        #expect(failures.values.isEmpty, "\(failures.values)")
        #expect(!unavailable.values.isEmpty, "some uploads met the outage")
        #expect(try server.client.get("/healthz").status == 200)
        let counts = try server.store.read { db in
            [try db.scalarInt("SELECT count(*) FROM runs"), try db.scalarInt("SELECT count(*) FROM checks"),
             try db.scalarInt("SELECT sum(checked_count) FROM leak_states")]
        }
        // Each run's leak is a record; its 8 passing checks are counted in leak_states only.
        #expect(counts == [Int64(runs), Int64(runs), Int64(runs * 9)], "every run once and whole")
    }
}
