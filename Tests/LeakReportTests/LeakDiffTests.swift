import Foundation
import Testing
@testable import LeakReport

private func check(_ scenario: String, _ type: String, _ outcome: CheckOutcome, fingerprint: String? = nil) -> CheckRecord {
    CheckRecord(scenario: scenario, file: "T.swift", line: 1, type: type, outcome: outcome,
                waitedMs: 1, timeoutMs: 2000, fingerprint: fingerprint)
}

@Suite struct LeakDiffTests {
    @Test(arguments: [
        // base checks, head checks, expected category (nil: not listed)
        ([CheckOutcome.deallocated], [CheckOutcome.leaked], LeakDiff.Category?.some(.new)),
        ([], [.leaked], .new),                               // a scenario the base never ran
        ([.leaked], [.leaked], .persisting),
        ([.leaked], [.deallocated], .fixed),
        ([.leaked], [], .notRun),
        ([.leaked], [.error], .notRun),
        ([.deallocated], [.leaked, .deallocated], .flaky),   // runs at head disagree
        ([.leaked, .deallocated], [.leaked], .flaky),        // runs at base disagree
        ([.deallocated], [.lateRelease], .lateRelease),
        ([], [.lateRelease, .deallocated], .lateRelease),
        ([.deallocated], [.deallocated], nil),
        ([], [.error], nil),
    ])
    func classifies(base: [CheckOutcome], head: [CheckOutcome], expected: LeakDiff.Category?) {
        let diff = LeakDiff(
            base: KeyObservation.fold(base.map { check("S/t()", "M.T", $0) }),
            head: KeyObservation.fold(head.map { check("S/t()", "M.T", $0) }))
        #expect(diff.entries.map(\.category) == (expected.map { [$0] } ?? []))
        #expect(diff.failsBuild(strict: false) == (expected == .new))
    }

    @Test func knownFlakyKeysAreFlakyNotNewAndFailOnlyWhenStrict() {
        let key = LeakKey(scenario: "S/t()", type: "M.T")
        let diff = LeakDiff(
            base: KeyObservation.fold([check("S/t()", "M.T", .deallocated)]),
            head: KeyObservation.fold([check("S/t()", "M.T", .leaked)]), flakyKeys: [key])
        #expect(diff.entries.map(\.category) == [.flaky])
        #expect(!diff.failsBuild(strict: false))
        #expect(diff.failsBuild(strict: true))
    }

    @Test func suppressionsMoveMatchesOutOfNewUntilTheyExpire() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let head = KeyObservation.fold([
            check("ProfileTests/a()", "App.ImageCache", .leaked, fingerprint: "f00d"),
            check("ProfileTests/b()", "App.Other", .leaked, fingerprint: "beef"),
            check("Other/c()", "App.Third", .leaked, fingerprint: "cafe"),
        ])
        let rules = [
            LeakSuppression(type: "App.*Cache", reason: "known cache leak, JIRA-1"),
            LeakSuppression(fingerprint: "cafe", reason: "expired", expiresAt: now.addingTimeInterval(-1)),
            LeakSuppression(scenario: "Nope/*", reason: "matches nothing"),
        ]
        let diff = LeakDiff(base: [:], head: head, suppressions: rules, now: now)
        #expect(diff.entries.map(\.category) == [.suppressed, .new, .new])
        #expect(diff.entries.map(\.type) == ["App.ImageCache", "App.Other", "App.Third"])
        #expect(diff.entries.first?.suppressedBecause == "known cache leak, JIRA-1")
        #expect(diff.counts[.new] == 2)
    }

    @Test(arguments: [
        ("App.*", "App.Cache", true), ("*Cache", "App.ImageCache", true), ("App.Cache", "App.Cache", true),
        ("App.Cache", "App.Caches", false), ("*", "", true), ("a*b*c", "aXbYc", true), ("a*b*c", "aXbY", false),
    ])
    func globPatterns(pattern: String, text: String, matches: Bool) {
        #expect(LeakSuppression.glob(pattern, matches: text) == matches)
    }

    @Test func anEmptySuppressionMatchesNothing() {
        let rule = LeakSuppression(reason: "too broad")
        #expect(!rule.matches(LeakKey(scenario: "S", type: "T"), fingerprint: nil, now: Date()))
    }

    @Test func entriesCarryWhereAndWhy() {
        let path = [RetainPathStep(holder: "M.T", property: "onDone", kind: .closure)]
        var leak = check("S/t()", "M.T", .leaked, fingerprint: "abc")
        leak.file = "ProfileTests.swift"
        leak.line = 42
        leak.retainPath = path
        let diff = LeakDiff(base: [:], head: KeyObservation.fold([leak]))
        let entry = diff.entries[0]
        #expect((entry.file, entry.line, entry.fingerprint, entry.retainPath) == ("ProfileTests.swift", 42, "abc", path))
    }
}
