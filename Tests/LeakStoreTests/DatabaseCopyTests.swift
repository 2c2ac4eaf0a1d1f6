import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// `leakhistory-server migrate`: a SQLite database copied whole into each engine answers as the
/// original, its tokens still work, and new rows continue after the copied ids.
@Suite("Database copy")
struct DatabaseCopyTests {
    @Test(arguments: TestEngine.all)
    func aCopyAnswersAsTheOriginalAndTakesNewRuns(_ engine: TestEngine) throws {
        let sourceDatabase = try TestDatabase(.sqlite)
        let source = try sourceDatabase.open()
        let token = try source.createProject("app")
        let reader = try source.createToken(project: "app", scope: .read)
        try source.revokeToken(id: reader.id)
        var rule = LeakSuppression(type: "App.Cache*", reason: "known, issue 7")
        rule.createdBy = "dev@example.com"
        _ = try source.addSuppression(project: "app", rule)
        for index in 0..<6 {
            var run = LeakStoreTests.run(key: "r\(index)", outcomes: index % 2 == 0 ? [.leaked, .deallocated] : [.deallocated, .error])
            run.commit = String(repeating: "\(index)", count: 40)
            run.parents = index == 0 ? [] : [String(repeating: "\(index - 1)", count: 40)]
            run.checks[0].retainPath = [RetainPathStep(holder: "App.Root", property: "cache", kind: .strong)]
            run.checks[0].knownIssue = index == 4 ? true : nil
            _ = try source.ingest(run)
        }

        let targetDatabase = try TestDatabase(engine)
        let target = try targetDatabase.open()
        let copied = try source.copy(into: target)
        #expect(copied.map(\.table) == CopiedTable.all.map(\.name))
        // 12 checks: the 3 row-less passing ones are counted in leak_states only.
        #expect(copied.first { $0.table == "checks" }?.rows == 9)

        #expect(try target.verifyToken(token.secret) == .valid(id: token.id, project: "app", scope: .write))
        #expect(try target.verifyToken(reader.secret) == .revoked(id: reader.id))
        #expect(try target.suppressions(project: "app") == source.suppressions(project: "app"))
        let sha = { (index: Int) in String(repeating: "\(index)", count: 40) }
        for head in 1..<6 {
            let expected = try source.diff(project: "app", base: sha(head - 1), head: sha(head), environment: "linux")
            #expect(try target.diff(project: "app", base: sha(head - 1), head: sha(head), environment: "linux") == expected)
        }
        #expect(try target.commit(project: "app", sha: sha(4), limit: 100, cursor: nil)
                == source.commit(project: "app", sha: sha(4), limit: 100, cursor: nil))

        // New rows get fresh ids on the target.
        let receipt = try target.ingest(LeakStoreTests.run(key: "after-copy"))
        #expect(receipt.created && receipt.runID == 7)
        _ = try target.createProject("second")

        #expect(throws: DatabaseCopyError.self) { try source.copy(into: target) }
        // The foreign keys hold again after the copy (PostgreSQL's are dropped during it).
        #expect(throws: (any Error).self) {
            try target.write { try $0.connection.run("""
                INSERT INTO checks (run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, site_id, checked_at)
                VALUES (999999, 1, 1, 'leaked', 1, 100, 1, '2026-01-01T00:00:00.000Z')
                """) }
        }
    }
}
