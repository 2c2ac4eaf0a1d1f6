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

    /// An entry shows the base's check only where the head has none to show or the leak was
    /// fixed: the store reads a side's checks by this rule alone (`showsBaseCheck`).
    @Test func anEntryShowsTheBasesCheckOnlyWhenFixedOrNotRunAtHead() {
        let key = LeakKey(scenario: "S/t()", type: "App.T")
        func shownFile(_ before: KeyState?, _ after: KeyState?) -> String? {
            let diff = LeakDiff(base: before.map { [key: KeyObservation(state: $0, file: "base.swift", line: 1)] } ?? [:],
                                head: after.map { [key: KeyObservation(state: $0, file: "head.swift", line: 2)] } ?? [:])
            return diff.entries.first?.file
        }
        let states: [KeyState?] = [nil, .clean, .leaked, .flaky, .lateRelease, .error]
        for before in states {
            for after in states {
                guard let file = shownFile(before, after) else { continue }
                #expect(file == (LeakDiff.showsBaseCheck(before: before, after: after) ? "base.swift" : "head.swift"),
                        "before \(String(describing: before)), after \(String(describing: after))")
            }
        }
        #expect(shownFile(.leaked, .clean) == "base.swift")
        #expect(shownFile(.leaked, .error) == "base.swift")
        #expect(shownFile(.leaked, nil) == "base.swift")
        #expect(shownFile(.clean, .leaked) == "head.swift")
        #expect(shownFile(.leaked, .lateRelease) == "head.swift")
    }

    @Test func theRuleJudgesAKeyLeakedAtHeadAndNotAtBaseAndItsEntryCarriesTheEvidence() {
        let key = LeakKey(scenario: "S/t()", type: "M.T")
        let intermittent = KeyEvidence(headRuns: 1, headLeakedRuns: 1, headAttempts: 1, headLeakedAttempts: 1,
                                       history: [.init(runs: 1, leakedRuns: 0), .init(runs: 1, leakedRuns: 1), .init(runs: 1, leakedRuns: 0)])
        let diff = LeakDiff(
            base: KeyObservation.fold([check("S/t()", "M.T", .deallocated)]),
            head: KeyObservation.fold([check("S/t()", "M.T", .leaked)]), evidence: [key: intermittent])
        #expect(diff.entries.map(\.category) == [.flaky])
        #expect(diff.entries.first?.evidence == GateRule.judge(intermittent).evidence)
        #expect(!diff.failsBuild(strict: false))
        #expect(diff.failsBuild(strict: true))
        // Leaking at base too: persisting, not judged.
        let persisting = LeakDiff(
            base: KeyObservation.fold([check("S/t()", "M.T", .leaked)]),
            head: KeyObservation.fold([check("S/t()", "M.T", .leaked)]), evidence: [key: intermittent])
        #expect(persisting.entries.map(\.category) == [.persisting])
        #expect(persisting.entries.first?.evidence == nil)
        // Without evidence: new.
        let unknown = LeakDiff(base: KeyObservation.fold([check("S/t()", "M.T", .deallocated)]),
                               head: KeyObservation.fold([check("S/t()", "M.T", .leaked)]))
        #expect(unknown.entries.map(\.category) == [.new])
    }

    /// Which base leak hides the head's (`isJudged`): only one confirmed at base. A base that
    /// leaked in every run but whose attempts released the key is the key's intermittence: the
    /// rule judges the head's leak from the evidence, and a clean history makes it new.
    @Test(arguments: [
        // base state, base confirmed, head state, judged
        (KeyState?.some(.leaked), true, KeyState?.some(.leaked), false),
        (.leaked, false, .leaked, true),
        (.leaked, false, .flaky, true),
        (.leaked, false, .clean, false),
        (.flaky, true, .leaked, true),
        (.clean, true, .leaked, true),
        (nil, true, .leaked, true),
    ])
    func aBaseLeakHidesTheHeadsOnlyWhenConfirmed(base: KeyState?, confirmed: Bool, head: KeyState?, judged: Bool) {
        #expect(LeakDiff.isJudged(before: base, after: head, baseConfirmed: confirmed) == judged)
    }

    @Test func aConfirmedLeakAtHeadOnAnUnconfirmedBaseLeakIsJudged() {
        let key = LeakKey(scenario: "S/t()", type: "M.T")
        let observation = { (state: KeyState) in KeyObservation(state: state, file: "T.swift", line: 1) }
        let evidence = KeyEvidence(headRuns: 1, headLeakedRuns: 1, headAttempts: 3, headLeakedAttempts: 3,
                                   history: [.init(runs: 1, leakedRuns: 1, releasedAttempts: 2)]
                                       + Array(repeating: .init(runs: 1, leakedRuns: 0), count: 40) + [.init(runs: 1, leakedRuns: 1)])
        func category(baseConfirmed: Bool) -> [LeakDiff.Category] {
            LeakDiff.classify([LeakDiff.KeyComparison(key: key, base: observation(.leaked), head: observation(.leaked),
                                                      evidence: evidence, inheritedFrom: nil, baseConfirmed: baseConfirmed)])
                .diff.entries.map(\.category)
        }
        #expect(category(baseConfirmed: true) == [.persisting])
        #expect(category(baseConfirmed: false) == [.new], "\(GateRule.judge(evidence).evidence.summary)")
        #expect(GateRule.judge(evidence).evidence.recentLeakedRuns == 2, "the base's unconfirmed leak is a leaked run, not the head's leak holding")
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

    @Test(arguments: [
        // head checks (true: inside withKnownIssue), base has it clean, expected category
        ([(CheckOutcome.leaked, true)], LeakDiff.Category.known),
        ([(.leaked, true), (.leaked, true)], .known),
        ([(.leaked, true), (.leaked, false)], .new),         // one plain leak is enough to be new
        ([(.leaked, false)], .new),
    ])
    func knownLeaksAreShownButDoNotFail(head: [(CheckOutcome, Bool)], expected: LeakDiff.Category) {
        let checks = head.map { outcome, known in
            var record = check("S/t()", "M.T", outcome)
            record.knownIssue = known ? true : nil
            return record
        }
        let diff = LeakDiff(base: KeyObservation.fold([check("S/t()", "M.T", .deallocated)]), head: KeyObservation.fold(checks))
        #expect(diff.entries.map(\.category) == [expected])
        #expect(diff.failsBuild(strict: true) == (expected == .new))
    }

    @Test func aKnownLeakThatAlsoLeakedAtBaseIsPersisting() {
        var known = check("S/t()", "M.T", .leaked)
        known.knownIssue = true
        let diff = LeakDiff(base: KeyObservation.fold([check("S/t()", "M.T", .leaked)]), head: KeyObservation.fold([known]))
        #expect(diff.entries.map(\.category) == [.persisting])
    }

    @Test func inheritedKeysAreNotNewAndNameTheCommitThatShowsThem() {
        let head = KeyObservation.fold([check("S/a()", "M.T", .leaked), check("S/b()", "M.T", .leaked)])
        let base = KeyObservation.fold([check("S/a()", "M.T", .deallocated), check("S/b()", "M.T", .deallocated)])
        let diff = LeakDiff(base: base, head: head, inherited: [LeakKey(scenario: "S/a()", type: "M.T"): "abc123"])
        #expect(diff.entries.map(\.category) == [.inherited, .new])
        #expect(diff.entries.map(\.inheritedFrom) == ["abc123", nil])
        #expect(diff.failsBuild(strict: false))
        // Inherited only replaces "new": a key that also leaked at the base is persisting.
        let persisting = LeakDiff(base: head, head: head, inherited: [LeakKey(scenario: "S/a()", type: "M.T"): "abc123"])
        #expect(persisting.entries.map(\.category) == [.persisting, .persisting])
    }

    @Test func withoutABaseEveryLeakAtHeadIsUnverifiedAndNothingFails() {
        let head = KeyObservation.fold([
            check("S/a()", "M.A", .leaked), check("S/b()", "M.B", .leaked), check("S/b()", "M.B", .deallocated),
            check("S/c()", "M.C", .lateRelease), check("S/d()", "M.D", .deallocated), check("S/e()", "M.E", .error),
        ])
        let diff = LeakDiff(unverifiedHead: head)
        #expect(diff.entries.map(\.category) == [.unverified, .unverified, .lateRelease])
        #expect(diff.entries.map(\.type) == ["M.A", "M.B", "M.C"])
        #expect(!diff.failsBuild(strict: true))
    }
}
