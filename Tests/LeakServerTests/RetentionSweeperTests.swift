import Foundation
import LeakReport
@testable import LeakServer
import LeakStore
import Testing

/// `retentionDays`: the background sweeper drops the records of runs older than the setting,
/// in batches, while the server keeps answering and accepting uploads.
@Suite("Retention sweeper")
struct RetentionSweeperTests {
    typealias Check = HistoryFixture.Check
    let sha = HistoryFixture.sha

    @Test func aSweepDropsOldRecordsInBatchesAndKeepsTheStates() throws {
        let server = try TestServer()
        for index in 1...5 {
            try server.uploadRun(commit: sha(index), parents: index == 1 ? [] : [sha(index - 1)],
                                 checks: [.leaked("A/a()", "App.A"), .clean("B/b()", "App.B")])
        }
        let before = try server.client.get("/v1/projects/app/types/App.A/trend?branch=main&environment=linux")
        #expect(before.status == 200)
        // Now, as the sweeper sees it, is 3 days on: every run is older than 2 days.
        let sweeper = RetentionSweeper(store: server.store, days: 2, interval: .seconds(3_600), batchRuns: 2,
                                       pause: .milliseconds(1), now: { Date().addingTimeInterval(3 * 86_400) })
        sweeper.sweep()
        #expect(try server.store.dropDetails(receivedBefore: Date().addingTimeInterval(86_400), runs: 10, afterRunID: 0).lastRunID == nil,
                "the sweep left nothing to drop")
        let after = try server.client.get("/v1/projects/app/types/App.A/trend?branch=main&environment=linux")
        let points = { (reply: HTTPClient.Reply) in (reply.json["points"] as? [[String: Any]])?.map { "\($0["leakedKeys"] ?? "")/\($0["checkedKeys"] ?? "")" } }
        #expect(points(after) == points(before) && points(after)?.count == 5, "the trend's counts come from the states")
        let commit = try server.client.get("/v1/projects/app/commits/\(sha(3))")
        let runs = try #require(commit.json["runs"] as? [[String: Any]])
        #expect(runs.first?["leaked"] as? Int == 1 && (runs.first?["leaks"] as? [Any])?.isEmpty == true)
        try server.uploadRun(commit: sha(6), parents: [sha(5)], checks: [.leaked("A/a()", "App.A")])

        // Started with the server, it sweeps at once and stops with it.
        let started = RetentionSweeper(store: server.store, days: 2, interval: .seconds(3_600), now: { Date().addingTimeInterval(3 * 86_400) })
        started.start()
        let deadline = Date().addingTimeInterval(30)
        while started.sweeps == 0, Date() < deadline { usleep(20_000) }
        started.stop()
        #expect(started.sweeps >= 1)
        let leaks = try server.client.get("/v1/projects/app/commits/\(sha(6))").json["runs"] as? [[String: Any]]
        #expect((leaks?.first?["leaks"] as? [Any])?.isEmpty == true)
    }
}
