import Foundation
import LeakReport
import Testing

/// A check's confirmation attempts through the server: refused by name when they cannot be,
/// stored on the check's full record, part of the run's content, and read back by the gate.
@Suite("Attempts at ingest")
struct AttemptsIngestTests {
    typealias Check = HistoryFixture.Check
    static let scenario = "ProfileTests/open()", type = "App.ProfileModel"

    static func check(_ outcome: String, attempts: Int?, leaked: Int?) -> Check {
        var check = Check(scenario: scenario, type: type, outcome: outcome)
        check.attempts = attempts
        check.leakedAttempts = leaked
        return check
    }

    @Test(arguments: [
        (Self.check("leaked", attempts: 0, leaked: nil), "checks[0].attempts"),
        (Self.check("leaked", attempts: 3, leaked: 4), "checks[0].leakedAttempts: 4 is more than attempts (3)"),
        (Self.check("leaked", attempts: 3, leaked: -1), "checks[0].leakedAttempts"),
        (Self.check("leaked", attempts: 3, leaked: 0), "checks[0].leakedAttempts"),
    ])
    func impossibleAttemptsAreA400NamingTheFieldAndStoreNothing(_ check: Check, _ named: String) throws {
        let server = try TestServer()
        let reply = try server.upload(HistoryFixture.runBody(commit: HistoryFixture.sha(1), runKey: "bad", checks: [check]))
        #expect(reply.status == 400)
        #expect(reply.text.contains(named), "\(reply.text)")
        #expect(try server.nothingStored())
    }

    @Test(arguments: TestEngine.all)
    func aCheckThatLeakedInSomeAttemptIsStoredLeakedWithItsAttempts(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: [Check.clean(Self.scenario, Self.type)])
        // A tool whose first attempt leaked and whose last released the object reports it released.
        try server.uploadRun(commit: HistoryFixture.sha(2), branch: "feature", parents: [HistoryFixture.sha(1)],
                             checks: [Self.check("deallocated", attempts: 3, leaked: 1)])
        let stored = try server.store.read { db in
            try db.scalarInt("SELECT count(*) FROM checks WHERE outcome = 'leaked' AND attempts = 3 AND leaked_attempts = 1")
        }
        #expect(stored == 1)
        let entry = try #require(try server.diff(base: 1, head: 2).entry(Self.scenario, Self.type))
        #expect(entry.category == .flaky, "a leak not confirmed at head")
        #expect(entry.evidence?.confirmedAtHead == false)
        #expect((entry.evidence?.headAttempts, entry.evidence?.headLeakedAttempts) == (3, 1))
    }

    @Test func aRetryWithOtherAttemptsIsA409AndOneWithoutThemMatches() throws {
        let server = try TestServer()
        let plain = HistoryFixture.runBody(commit: HistoryFixture.sha(1), runKey: "ci-7", checks: [Check.leaked(Self.scenario, Self.type)])
        #expect(try server.upload(plain).status == 201)
        let before = try server.rowCounts()
        let defaults = HistoryFixture.runBody(commit: HistoryFixture.sha(1), runKey: "ci-7",
                                              checks: [Self.check("leaked", attempts: 1, leaked: 1)])
        #expect(try server.upload(defaults).status == 200, "the defaults spelled out are the same run")
        let other = HistoryFixture.runBody(commit: HistoryFixture.sha(1), runKey: "ci-7",
                                           checks: [Self.check("leaked", attempts: 3, leaked: 3)])
        let reply = try server.upload(other)
        #expect(reply.status == 409)
        #expect(try server.rowCounts() == before)
    }
}
