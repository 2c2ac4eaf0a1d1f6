import Foundation
import LeakReport
import Testing

/// The CI gate's rules on the server: which runs count, where a key's base state comes from,
/// which leaks are new.
@Suite("The CI gate: diff rules")
struct GateTests {
    typealias Check = HistoryFixture.Check
    static let scenario = "ProfileTests/open()"
    static let type = "App.ProfileModel"
    static func key(_ outcome: String) -> [Check] { [Check(scenario: scenario, type: type, outcome: outcome)] }
    static let other = [Check.clean("Other/x()", "App.Other")]

    /// Main's states of the key, oldest first (`-` no upload, `.` uploaded without the key, `L`
    /// leaked, `c` clean, `e` errored, `F` runs disagree), then a feature commit that leaks it:
    /// where the feature's leak lands against main's newest commit.
    struct HistoryCase: CustomTestStringConvertible, Sendable {
        var name: String
        var main: String
        var expected: LeakDiff.Category
        var baseStateFrom: Int? = nil
        var testDescription: String { name }
    }

    static let histories: [HistoryCase] = [
        HistoryCase(name: "never leaked before: new", main: "cccccc", expected: .new),
        HistoryCase(name: "leaked once, then clean again: flaky", main: "ccLccc", expected: .flaky),
        HistoryCase(name: "leaked twice briefly: flaky", main: "cLcccLcc", expected: .flaky),
        HistoryCase(name: "leaking at base, after a one-commit gap: persisting", main: "LLLcLLL", expected: .persisting),
        HistoryCase(name: "runs at one commit disagreed: flaky", main: "ccFccc", expected: .flaky),
        HistoryCase(name: "a held leak fixed and stayed fixed, then back: new", main: "cc" + String(repeating: "L", count: GateRule.heldLeakCommits) + "cccc",
                    expected: .new),
        HistoryCase(name: "a short leak on a clean key fixed, then back: its rate cannot explain four in a row: new", main: "ccLLLLcccc",
                    expected: .new),
        HistoryCase(name: "leaking all along: persisting", main: "cLLLLL", expected: .persisting),
        HistoryCase(name: "a short leak on a clean key fixed for two commits, then back: new", main: "cLLLLcc", expected: .new),
        HistoryCase(name: "a held leak fixed for two commits, then back: new",
                    main: "c" + String(repeating: "L", count: GateRule.heldLeakCommits) + "cc", expected: .new),
        HistoryCase(name: "base did not check it: the ancestor that did says clean", main: "ccc..", expected: .new, baseStateFrom: 3),
        HistoryCase(name: "base did not check it: the ancestor that did says leaked", main: "cLL..", expected: .persisting, baseStateFrom: 3),
        HistoryCase(name: "base errored: the ancestor says leaked", main: "cLLe", expected: .persisting, baseStateFrom: 3),
        HistoryCase(name: "commits without uploads are walked through", main: "cLL--.", expected: .persisting, baseStateFrom: 3),
        HistoryCase(name: "no ancestor checked it: new", main: "...", expected: .new),
        HistoryCase(name: "leaked at the first upload only, then clean: flaky", main: "Lccc", expected: .flaky),
        HistoryCase(name: "a long leak fixed for two commits, then back: new", main: "c" + String(repeating: "L", count: 12) + "cc",
                    expected: .new),
        HistoryCase(name: "a long leak fixed for one commit, then back: new", main: "c" + String(repeating: "L", count: 12) + "c",
                    expected: .new),
    ]

    @Test(arguments: histories)
    func aFeatureLeakAgainstMainsHistory(_ row: HistoryCase) throws {
        let server = try TestServer()
        let runs: [[[Check]]?] = row.main.map { symbol in
            switch symbol {
            case "-": nil
            case ".": [Self.other]
            case "L": [Self.key("leaked")]
            case "c": [Self.key("deallocated")]
            case "e": [Self.key("error")]
            default: [Self.key("leaked"), Self.key("deallocated")]
            }
        }
        for (offset, commitRuns) in runs.enumerated() {
            for checks in commitRuns ?? [] {
                try server.uploadRun(commit: HistoryFixture.sha(offset + 1), parents: offset == 0 ? [] : [HistoryFixture.sha(offset)],
                                     checks: checks + Self.other)
            }
        }
        let base = row.main.count, head = 100
        try server.uploadRun(commit: HistoryFixture.sha(head), branch: "feature", parents: [HistoryFixture.sha(base)], checks: Self.key("leaked"))
        let diff = try server.diff(base: base, head: head)
        let entry = try #require(diff.entry(Self.scenario, Self.type))
        #expect(entry.category == row.expected)
        #expect(entry.baseStateFrom == row.baseStateFrom.map(HistoryFixture.sha))
        #expect((entry.evidence != nil) == (row.expected == .new || row.expected == .flaky), "judged by the rule, with its evidence")
    }

    @Test func aLeakTheBaseBranchShowsAfterTheMergeBaseIsInheritedNotNew() throws {
        let server = try TestServer()
        // main: 1 clean, 2 and 3 without uploads (the merge-base is 3), 4 leaks (main's own upload after it).
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: Self.key("deallocated") + [Check.clean("S/b()", "App.B")])
        try server.uploadRun(commit: HistoryFixture.sha(4), parents: [HistoryFixture.sha(3)], checks: Self.key("leaked"))
        try server.uploadRun(commit: HistoryFixture.sha(10), branch: "feature", parents: [HistoryFixture.sha(3)],
                             checks: Self.key("leaked") + [Check.leaked("S/b()", "App.B")])
        let diff = try server.diff(base: 1, head: 10, after: 4)
        #expect(diff.entry(Self.scenario, Self.type)?.category == .inherited)
        #expect(diff.entry(Self.scenario, Self.type)?.inheritedFrom == HistoryFixture.sha(4))
        #expect(diff.entry("S/b()", "App.B")?.category == .new, "main after the merge-base does not leak it: the change did")
        #expect(diff.diff.failsBuild(strict: false))
        let without = try server.diff(base: 1, head: 10)
        #expect(without.entry(Self.scenario, Self.type)?.category == .new)
    }

    @Test func withoutABaseTheHeadsLeaksAreUnverified() throws {
        let server = try TestServer()
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: Self.key("leaked") + [Check.clean("S/b()", "App.B")])
        let diff = try server.diff(base: nil, head: 1)
        #expect(diff.base == nil)
        #expect(diff.head.runs == 1)
        #expect(diff.entries.map(\.category) == [.unverified])
        #expect(diff.entries.first?.firstSeen == HistoryFixture.sha(1))
        #expect(!diff.diff.failsBuild(strict: true))
    }

    @Test func aSmallRunIsNeverSuspect() throws {
        let server = try TestServer()
        let body = HistoryFixture.runBody(commit: HistoryFixture.sha(1), runKey: "small",
                                          checks: [.leaked("S/a()", "App.A"), .leaked("S/b()", "App.B")], pad: false)
        let receipt = try JSONDecoder().decode(UploadReceipt.self, from: try server.upload(body).body)
        #expect(!receipt.suspect)
        let diff = try server.diff(base: nil, head: 1)
        #expect(diff.head.suspectRuns == nil)
        #expect(diff.entries.count == 2)
    }

    @Test func aSuspectHeadStillShowsItsLeaksAndNamesItsRun() throws {
        let server = try TestServer()
        let many = (0..<24).map { Check.leaked("Many/t\($0)()", "App.M\($0)") }
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: Self.key("deallocated"))
        try server.uploadRun(commit: HistoryFixture.sha(2), branch: "feature", parents: [HistoryFixture.sha(1)],
                             checks: many + Self.key("leaked"), pad: false)
        let diff = try server.diff(base: 1, head: 2)
        #expect(diff.head.runs == 1)
        let suspect = try #require(diff.head.suspectRuns?.first)
        #expect((suspect.checks, suspect.leaked, suspect.errors) == (25, 25, 0))
        #expect(diff.diff.entries(in: .new).count == 25)
        // As a base it never counts: the same run is no base data.
        let asBase = try server.diff(base: 2, head: 1)
        #expect(asBase.base?.runs == 0)
        let resolved = try JSONDecoder().decode(ResolveResponse.self, from: try server.resolve([HistoryFixture.sha(2)]).body)
        #expect(resolved.base == nil)
    }

    @Test func aLeakInsideWithKnownIssueIsKnownNotNew() throws {
        let server = try TestServer()
        var known = Check.leaked(Self.scenario, Self.type)
        known.knownIssue = true
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: Self.key("deallocated") + [Check.clean("S/b()", "App.B")])
        try server.uploadRun(commit: HistoryFixture.sha(2), branch: "feature", parents: [HistoryFixture.sha(1)],
                             checks: [known, Check.leaked("S/b()", "App.B")])
        let diff = try server.diff(base: 1, head: 2)
        #expect(diff.entry(Self.scenario, Self.type)?.category == .known)
        #expect(diff.entry("S/b()", "App.B")?.category == .new)
        let stored = try server.store.read { db in
            try db.scalarInt("SELECT count(*) FROM checks WHERE known_issue = 1")
        }
        #expect(stored == 1)
    }

    @Test func firstSeenFollowsFirstParentsNotBranchLabels() throws {
        let server = try TestServer()
        // main leaks from 2 on; a branch started at 3 carries it, and says nothing new about it.
        try server.uploadLine(from: 1, [Self.key("deallocated"), Self.key("leaked"), Self.key("leaked")])
        try server.uploadLine(from: 10, branch: "feature", parentOfFirst: 3, [Self.key("leaked"), Self.key("leaked")])
        let diff = try server.diff(base: 3, head: 11)
        #expect(diff.entry(Self.scenario, Self.type)?.category == .persisting)
        #expect(diff.entry(Self.scenario, Self.type)?.firstSeen == HistoryFixture.sha(2))
    }

    @Test(arguments: TestEngine.all)
    func aPullRequestIsJudgedAlongItsOwnAncestry(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        // main: clean at 1-10 (10 is the merge-base); the pull request leaks at 11, is clean at 12,
        // leaks at 13: its own commits show the key intermittent (1 leak in the 12 runs before the
        // head: its rate is measured over `GateRule.minimumMeasuredRuns` runs, or all there are).
        try server.uploadLine(from: 1, Array(repeating: Self.key("deallocated"), count: 10))
        try server.uploadLine(from: 11, branch: "feature", parentOfFirst: 10,
                              [Self.key("leaked"), Self.key("deallocated"), Self.key("leaked")])
        let intermittent = try #require(try server.diff(base: 10, head: 13).entry(Self.scenario, Self.type))
        #expect(intermittent.category == .flaky)
        #expect(intermittent.evidence?.recentRuns == 12)
        #expect(intermittent.evidence?.recentLeakedRuns == 1)
        #expect(intermittent.evidence?.commitsLookedAt == 12)
        // Another pull request from 10 that leaks at once: main's history is clean.
        try server.uploadRun(commit: HistoryFixture.sha(20), branch: "other", parents: [HistoryFixture.sha(10)], checks: Self.key("leaked"))
        let new = try #require(try server.diff(base: 10, head: 20).entry(Self.scenario, Self.type))
        #expect(new.category == .new)
        #expect(new.evidence?.summary.contains("0 of the last 10 runs leaked") == true, "\(new.evidence?.summary ?? "")")
    }

    @Test(arguments: TestEngine.all)
    func aLeakThePullRequestBroughtInEarlierIsTheHeadsOwnLeakNotHistory(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        // main: clean at 1-6; the pull request leaks at both its commits.
        try server.uploadLine(from: 1, Array(repeating: Self.key("deallocated"), count: 6))
        try server.uploadLine(from: 10, branch: "feature", parentOfFirst: 6, [Self.key("leaked"), Self.key("leaked")])
        let entry = try #require(try server.diff(base: 6, head: 11).entry(Self.scenario, Self.type))
        #expect(entry.category == .new)
        #expect(entry.evidence?.commitsLookedAt == 7, "the pull request's first commit and main's six")
        #expect((entry.evidence?.recentRuns, entry.evidence?.recentLeakedRuns) == (6, 0), "measured before the head's leak")
    }

    @Test(arguments: TestEngine.all)
    func aMergeHeadIsJudgedAlongWhatItBringsIn(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        // main: clean at 1-5; a branch from 5 leaks at 6, is clean at 7 and 8; merged at 9, which leaks.
        try server.uploadLine(from: 1, Array(repeating: Self.key("deallocated"), count: 5))
        try server.uploadLine(from: 6, branch: "feature", parentOfFirst: 5,
                              [Self.key("leaked"), Self.key("deallocated"), Self.key("deallocated")])
        try server.uploadRun(commit: HistoryFixture.sha(9), parents: [HistoryFixture.sha(5), HistoryFixture.sha(8)], checks: Self.key("leaked"))
        let entry = try #require(try server.diff(base: 5, head: 9).entry(Self.scenario, Self.type))
        #expect(entry.category == .flaky, "the branch it merges leaked it once in three commits")
        #expect(entry.evidence?.commitsLookedAt == 8)
    }

    @Test(arguments: TestEngine.all)
    func attemptsAtHeadDecideBetweenIntermittentAndConfirmed(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        // main: the key leaked at commit 2 of 20, one run each: about 5% of its runs since.
        try server.uploadLine(from: 1, (1...20).map { Self.key($0 == 2 ? "leaked" : "deallocated") })
        func head(_ commit: Int, attempts: Int, leaked: Int) throws -> LeakDiff.Entry {
            var check = Check.leaked(Self.scenario, Self.type)
            check.attempts = attempts
            check.leakedAttempts = leaked
            try server.uploadRun(commit: HistoryFixture.sha(commit), branch: "feature", parents: [HistoryFixture.sha(20)], checks: [check])
            return try #require(try server.diff(base: 20, head: commit).entry(Self.scenario, Self.type))
        }
        let released = try head(30, attempts: 3, leaked: 1)
        #expect(released.category == .flaky)
        #expect(released.evidence?.confirmedAtHead == false)
        #expect(released.evidence?.summary.contains("1 of 3 attempts") == true)
        let confirmed = try head(31, attempts: 3, leaked: 3)
        #expect(confirmed.category == .new, "a key leaking in 5% of its runs leaks in 3 attempts of 3 hardly ever")
        #expect(confirmed.evidence?.confirmedAtHead == true)
        #expect((confirmed.evidence?.headAttempts, confirmed.evidence?.headLeakedAttempts) == (3, 3))
        #expect((confirmed.evidence?.recentRuns, confirmed.evidence?.recentLeakedRuns) == (20, 1))
        let once = try head(32, attempts: 1, leaked: 1)
        #expect(once.category == .flaky, "one attempt: a key that leaks in 5% of its runs explains it")
        #expect(once.evidence?.headAttempts == 1)
    }

    /// A leak the head's other environment confirmed too counts its attempts there, with the
    /// key's rate there (`GateRule.countedSightings`); a clean run or a released attempt there
    /// refutes nothing: a leak can be one platform's.
    @Test(arguments: TestEngine.all)
    func aLeakConfirmedInAnotherEnvironmentCountsThere(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        // main in both environments: the key leaked at commit 2 of 20, about 5% of its runs.
        for environment in ["linux", "macos"] {
            try server.uploadLine(from: 1, environment: environment, (1...20).map { Self.key($0 == 2 ? "leaked" : "deallocated") })
        }
        func head(_ commit: Int, macos: [Check]) throws -> LeakDiff.Entry {
            let sha = HistoryFixture.sha(commit), parent = [HistoryFixture.sha(20)]
            try server.uploadRun(commit: sha, branch: "feature", parents: parent, environment: "macos", checks: macos)
            try server.uploadRun(commit: sha, branch: "feature", parents: parent, checks: Self.key("leaked"))
            return try #require(try server.diff(base: 20, head: commit).entry(Self.scenario, Self.type))
        }
        let both = try head(30, macos: Self.key("leaked"))
        #expect(both.category == .new, "5% here and 5% there leak together at one head hardly ever")
        #expect(both.evidence?.otherEnvironments == [.init(environment: "macos", countedAttempts: 1, recentRuns: 20, recentLeakedRuns: 1)])
        #expect(both.evidence?.summary
                == "leaked at head, as in 5% of its last 20 runs, and at head in macos, where 1 of its last 20 runs leaked: its rates cannot explain both")
        let cleanThere = try head(31, macos: Self.key("deallocated"))
        #expect(cleanThere.category == .flaky, "a clean run elsewhere is no evidence either way")
        #expect(cleanThere.evidence?.otherEnvironments == nil)
        var released = Check.leaked(Self.scenario, Self.type)
        released.attempts = 3
        released.leakedAttempts = 2
        let releasedThere = try head(32, macos: [released])
        #expect(releasedThere.category == .flaky, "an attempt there released it: intermittent there")
        #expect(releasedThere.evidence?.otherEnvironments == nil)
    }

    /// A base whose leak some attempt released leaked the key by its intermittence: the base's
    /// leak is evidence in the measured stretch, not a state that makes a confirmed leak at head
    /// `persisting`. A base leak confirmed in every attempt still hides the head's.
    @Test(arguments: TestEngine.all)
    func aBaseLeakSomeAttemptReleasedDoesNotHideTheHeadsLeak(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        func leak(attempts: Int, leaked: Int) -> [Check] {
            var check = Check.leaked(Self.scenario, Self.type)
            check.attempts = attempts
            check.leakedAttempts = leaked
            return [check]
        }
        // main: leaked in 1 of 3 attempts at 2 and at 20, clean between, in 3 of 3 attempts at 21.
        try server.uploadLine(from: 1, [Self.key("deallocated"), leak(attempts: 3, leaked: 1)]
                              + Array(repeating: Self.key("deallocated"), count: 17)
                              + [leak(attempts: 3, leaked: 1), leak(attempts: 3, leaked: 3)])
        func head(_ commit: Int, base: Int, attempts: Int, leaked: Int) throws -> LeakDiff.Entry {
            try server.uploadRun(commit: HistoryFixture.sha(commit), branch: "feature", parents: [HistoryFixture.sha(base)],
                                 checks: leak(attempts: attempts, leaked: leaked))
            return try #require(try server.diff(base: base, head: commit).entry(Self.scenario, Self.type))
        }
        let confirmed = try head(30, base: 20, attempts: 3, leaked: 3)
        #expect(confirmed.category == .new, "a key that leaked twice in 20 runs leaks in 3 attempts of 3 hardly ever")
        #expect((confirmed.evidence?.recentRuns, confirmed.evidence?.recentLeakedRuns) == (20, 2), "the base's leak counts as one")
        #expect(confirmed.evidence?.summary == "confirmed in 3 of 3 attempts; its rate of 10% in its last 20 runs cannot explain that")
        let intermittent = try head(31, base: 20, attempts: 3, leaked: 2)
        #expect(intermittent.category == .flaky)
        #expect(intermittent.evidence?.confirmedAtHead == false)
        let held = try head(32, base: 21, attempts: 3, leaked: 3)
        #expect(held.category == .persisting, "confirmed at base: the head's leak is the base's")
        #expect(held.evidence == nil)
    }

    @Test func badCommitParametersAreRefusedByName() throws {
        let server = try TestServer()
        for name in ["base", "after", "mergeBase"] {
            let reply = try server.client.get("/v1/projects/app/diff?head=\(HistoryFixture.sha(1))&\(name)=nope")
            #expect(reply.status == 400)
            #expect(reply.text.contains("\(name): expected a 40-digit hex commit id"))
        }
    }
}
