import Foundation
import LeakReport
import Testing

@Suite("GET /v1/projects/{project}/diff")
struct DiffTests {
    typealias Check = HistoryFixture.Check
    static let scenario = "ProfileTests/open()"
    static let type = "App.ProfileModel"

    /// One row: the outcome of the key in each run at base and at head (nil: the run did not
    /// check it), and where the key must land.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var base: [String?]
        var head: [String?]
        var expected: LeakDiff.Category?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "new", base: ["deallocated"], head: ["leaked"], expected: .new),
        Case(name: "fixed", base: ["leaked"], head: ["deallocated"], expected: .fixed),
        Case(name: "persisting", base: ["leaked"], head: ["leaked"], expected: .persisting),
        Case(name: "flaky: runs at head disagree", base: ["deallocated"], head: ["leaked", "deallocated"], expected: .flaky),
        Case(name: "flaky: runs at base disagree", base: ["leaked", "deallocated"], head: ["leaked"], expected: .flaky),
        Case(name: "notRun", base: ["leaked"], head: [nil], expected: .notRun),
        Case(name: "lateRelease is a warning, not new", base: ["deallocated"], head: ["lateRelease"], expected: .lateRelease),
        Case(name: "new in a scenario the base never ran", base: [nil], head: ["leaked"], expected: .new),
        Case(name: "clean at both says nothing", base: ["deallocated"], head: ["deallocated"], expected: nil),
    ]

    @Test(arguments: cases)
    func eachKeyLandsInItsClass(_ row: Case) throws {
        let server = try TestServer()
        for (commit, outcomes) in [(1, row.base), (2, row.head)] {
            for outcome in outcomes {
                let checks = outcome.map { [Check(scenario: Self.scenario, type: Self.type, outcome: $0, fingerprint: "fp-profile")] } ?? []
                try server.uploadRun(commit: HistoryFixture.sha(commit), branch: commit == 1 ? "main" : "feature",
                                     parents: commit == 2 ? [HistoryFixture.sha(1)] : [], checks: checks)
            }
        }
        let diff = try server.diff(base: 1, head: 2)
        #expect(diff.base == .init(commit: HistoryFixture.sha(1), runs: row.base.count))
        #expect(diff.head == .init(commit: HistoryFixture.sha(2), runs: row.head.count))
        let entry = diff.entry(Self.scenario, Self.type)
        #expect(entry?.category == row.expected)
        #expect(diff.entries.count == (row.expected == nil ? 0 : 1), "only the key under test may show: \(diff.entries)")
        for category in LeakDiff.Category.allCases {
            #expect(diff.counts[category.rawValue] == (category == row.expected ? 1 : 0), "\(category)")
        }
        if let entry {
            #expect(entry.file == "Tests.swift" && entry.line == 7)
            #expect(entry.fingerprint == "fp-profile")
        }
    }

    /// The key leaks at base and head: persisting, whether or not it flipped earlier on the base
    /// branch (the gate judges only keys not leaked at base).
    @Test(arguments: [("deallocated", LeakDiff.Category.persisting), ("leaked", LeakDiff.Category.persisting)])
    func aKeyLeakingAtBaseAndHeadIsPersisting(_ middle: String, _ expected: LeakDiff.Category) throws {
        let server = try TestServer()
        let key = { (outcome: String) in [Check(scenario: Self.scenario, type: Self.type, outcome: outcome)] }
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: key("leaked"))
        try server.uploadRun(commit: HistoryFixture.sha(2), parents: [HistoryFixture.sha(1)], checks: key(middle))
        try server.uploadRun(commit: HistoryFixture.sha(3), parents: [HistoryFixture.sha(2)], checks: key("leaked"))
        try server.uploadRun(commit: HistoryFixture.sha(4), branch: "feature", parents: [HistoryFixture.sha(3)], checks: key("leaked"))
        let diff = try server.diff(base: 3, head: 4)
        #expect(diff.entry(Self.scenario, Self.type)?.category == expected)
    }

    @Test func firstSeenIsTheFirstBaseBranchCommitWhereTheKeyLeaked() throws {
        let server = try TestServer()
        let old = Check.leaked("OldTests/a()", "App.Old"), fresh = Check.leaked("NewTests/b()", "App.New")
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: [])
        try server.uploadRun(commit: HistoryFixture.sha(2), parents: [HistoryFixture.sha(1)], checks: [old])
        try server.uploadRun(commit: HistoryFixture.sha(3), parents: [HistoryFixture.sha(2)], checks: [old])
        try server.uploadRun(commit: HistoryFixture.sha(4), branch: "feature", parents: [HistoryFixture.sha(3)], checks: [old, fresh])
        let diff = try server.diff(base: 3, head: 4)
        #expect(diff.entry("OldTests/a()", "App.Old")?.category == .persisting)
        #expect(diff.entry("OldTests/a()", "App.Old")?.firstSeen == HistoryFixture.sha(2))
        #expect(diff.entry("NewTests/b()", "App.New")?.category == .new)
        #expect(diff.entry("NewTests/b()", "App.New")?.firstSeen == HistoryFixture.sha(4), "a new leak was first seen at the head")
    }

    @Test func aCommitWithNoRunsIsASideWithZeroRuns() throws {
        let server = try TestServer()
        try server.uploadRun(commit: HistoryFixture.sha(2), checks: [.leaked(Self.scenario, Self.type)])
        let diff = try server.diff(base: 1, head: 2)
        #expect(diff.base?.runs == 0)
        #expect(diff.head.runs == 1)
        #expect(diff.entry(Self.scenario, Self.type)?.category == .new)
        let missingHead = try server.diff(base: 2, head: 3)
        #expect(missingHead.head.runs == 0)
        #expect(missingHead.entry(Self.scenario, Self.type)?.category == .notRun)
    }

    @Test func environmentsNeverMix() throws {
        let server = try TestServer()
        try server.uploadRun(commit: HistoryFixture.sha(1), environment: "macos", checks: [.clean(Self.scenario, Self.type)])
        try server.uploadRun(commit: HistoryFixture.sha(1), environment: "linux", checks: [.leaked(Self.scenario, Self.type)])
        try server.uploadRun(commit: HistoryFixture.sha(2), environment: "macos", checks: [.leaked(Self.scenario, Self.type)])
        let macos = try server.diff(base: 1, head: 2, environment: "macos")
        #expect(macos.base?.runs == 1)
        #expect(macos.entry(Self.scenario, Self.type)?.category == .new, "the linux leak at base must not count for macos")
        let linux = try server.diff(base: 1, head: 2, environment: "linux")
        #expect(linux.head.runs == 0)
        #expect(linux.entry(Self.scenario, Self.type)?.category == .notRun)
    }

    @Test func suspectRunsAreNotBaseData() throws {
        let server = try TestServer()
        // A usable run where the key is clean, and a suspect run (every one of 20 checks leaked) at the same commit.
        let many = (0..<19).map { Check.leaked("Many/t\($0)()", "App.M\($0)") }
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: [.clean(Self.scenario, Self.type)])
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: [.leaked(Self.scenario, Self.type)] + many, pad: false)
        // Only a suspect run here.
        try server.uploadRun(commit: HistoryFixture.sha(2), checks: [.leaked(Self.scenario, Self.type)] + many, pad: false)
        try server.uploadRun(commit: HistoryFixture.sha(3), checks: [.leaked(Self.scenario, Self.type)])
        let mixed = try server.diff(base: 1, head: 3)
        #expect(mixed.base?.runs == 1)
        #expect(mixed.entry(Self.scenario, Self.type)?.category == .new, "with the suspect run counted it would be flaky")
        #expect(mixed.entry("Many/t0()", "App.M0") == nil, "the suspect run's leaks are no base data")
        let onlySuspect = try server.diff(base: 2, head: 3)
        #expect(onlySuspect.base?.runs == 0)
        #expect(onlySuspect.entry(Self.scenario, Self.type)?.category == .new)
    }

    @Test func projectsDoNotSeeEachOthersData() throws {
        let server = try TestServer()
        let webToken = try server.store.createProject("web").secret
        let body = HistoryFixture.runBody(project: "web", commit: HistoryFixture.sha(1), runKey: "web-1",
                                          checks: [.leaked(Self.scenario, Self.type)])
        #expect(try server.client.post("/v1/projects/web/runs", body: body, headers: ["Authorization": "Bearer \(webToken)"]).status == 201)
        let diff = try server.diff(base: 1, head: 1)
        #expect(diff.base?.runs == 0 && diff.entries.isEmpty)
        let resolved = try JSONDecoder().decode(ResolveResponse.self, from: try server.resolve([HistoryFixture.sha(1)]).body)
        #expect(resolved.base == nil)
    }
}
