import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// Retention drops the full records of old runs in small batches and keeps the per-key states
/// that diffs, trends, types, first-seen and scenario history read.
@Suite("Retention")
struct RetentionTests {
    /// What every state-reading query says, without the details retention drops.
    static func states(_ store: LeakStore, _ history: AnswerHistory) throws -> [String] {
        var lines: [String] = []
        let project = AnswerHistory.project, now = Date(timeIntervalSince1970: 1_900_000_000)
        for (index, head) in history.commits.enumerated() where index > 0 {
            let diff = try store.diff(project: project, base: history.commits[index - 1], head: head, environment: "linux",
                                      mergeBase: nil, after: nil, now: now)
            lines.append("diff \(index): " + diff.leaks.entries.map { "\($0.category) \($0.scenario) \($0.type) \($0.firstSeen ?? "-")" }
                .joined(separator: ", "))
        }
        for type in history.types {
            let trend = try store.trend(project: project, type: type, branch: "main", environment: "linux", limit: 1_000)
            lines.append("trend \(type): " + trend.map { "\($0.commit.suffix(3)) \($0.leakedKeys)/\($0.checkedKeys) \($0.scenarios)" }
                .joined(separator: ", "))
        }
        let types = try store.leakingTypes(project: project, branch: "main", environment: "linux")
        lines.append("types: " + types.types.map { "\($0.type) \($0.leakingScenarios) \($0.firstSeen) \($0.direction)" }.joined(separator: ", "))
        for scenario in history.scenarios {
            lines.append("history \(scenario): " + CanonicalText.render(try store.scenarioHistory(
                project: project, scenario: scenario, branch: nil, environment: "linux", limit: 1_000)))
        }
        return lines
    }

    @Test(arguments: TestEngine.all)
    func oldRecordsGoInBatchesAndEveryStateStays(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        let history = AnswerHistory()
        try history.upload(into: store)
        let before = try Self.states(store, history)
        let recordsBefore = try store.read { try $0.scalarInt("SELECT count(*) FROM checks") ?? 0 }

        // Nothing is old yet.
        #expect(try store.dropDetails(receivedBefore: Date(timeIntervalSinceNow: -86_400), runs: 5).lastRunID == nil)

        var after: Int64 = 0
        var batches = 0, deleted = 0, stripped = 0
        while true {
            let batch = try store.dropDetails(receivedBefore: Date(timeIntervalSinceNow: 60), runs: 5, afterRunID: after)
            guard let last = batch.lastRunID else { break }
            #expect(batch.runs <= 5)
            after = last
            batches += 1
            deleted += batch.deleted
            stripped += batch.stripped
        }
        #expect(Int64(deleted) + Int64(stripped) <= recordsBefore && deleted > 0 && stripped > 0)
        #expect(batches > 3, "small batches, not one long transaction")
        let suspectRuns = history.runs.filter { RunTally($0.checks).suspect }
        let left = try store.read { db in
            (try db.scalarInt("SELECT count(*) FROM checks") ?? -1,
             try db.scalarInt("SELECT count(*) FROM checks WHERE retain_path IS NOT NULL OR message IS NOT NULL") ?? -1)
        }
        #expect(left.0 == Int64(suspectRuns.reduce(0) { $0 + $1.checks.count }) && left.0 < recordsBefore)
        #expect(left.1 == 0)
        #expect(try Self.states(store, history) == before)
        // A commit page still lists its runs and counts; the leaks' records are gone.
        let page = try #require(try store.commit(project: AnswerHistory.project, sha: history.commits[0], limit: 100, cursor: nil))
        #expect(!page.runs.isEmpty && page.runs.allSatisfy { $0.suspect || $0.leaks.isEmpty })
        // A second pass finds nothing left, and new uploads still work.
        #expect(try store.dropDetails(receivedBefore: Date(timeIntervalSinceNow: 60), runs: 5).lastRunID == nil)
        var run = history.runs[0]
        run.runKey = "after-retention"
        #expect(try store.ingest(run).created)
    }
}
