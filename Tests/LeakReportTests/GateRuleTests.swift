import Foundation
import Testing
@testable import LeakReport

@Suite struct GateRuleTests {
    typealias Tally = KeyEvidence.RunTally

    /// `commits` commits of one run each, oldest first in the making, returned newest first: the
    /// key leaks at rate `rate`, spread evenly (a leak wherever `rate × commits` passes a whole
    /// number), so the measured rate is the rate and no random draw makes a case pass by luck.
    static func intermittent(_ rate: Double, commits: Int) -> [Tally] {
        (0..<commits).map { index in
            let leaked = Int(Double(index + 1) * rate) > Int(Double(index) * rate)
            return Tally(runs: 1, leakedRuns: leaked ? 1 : 0)
        }.reversed()
    }

    static func clean(_ commits: Int) -> [Tally] { Array(repeating: Tally(runs: 1, leakedRuns: 0), count: commits) }
    static func leaking(_ commits: Int) -> [Tally] { Array(repeating: Tally(runs: 1, leakedRuns: 1), count: commits) }

    /// A head whose `runs` runs all leaked the key in every one of their `attempts` attempts.
    static func confirmed(attempts: Int, runs: Int = 1, history: [Tally]) -> KeyEvidence {
        KeyEvidence(headRuns: runs, headLeakedRuns: runs, headAttempts: attempts * runs,
                    headLeakedAttempts: attempts * runs, history: history)
    }

    @Test func cleanHistoryIsNew() {
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 3, history: Self.clean(412)))
        #expect(verdict == .new)
        #expect(evidence.summary == "leaked in 3 of 3 attempts at head; 0 of the last 412 runs leaked")
        #expect(evidence.confirmedAtHead && evidence.recentRuns == 412 && evidence.recentLeakedRuns == 0)
        #expect(evidence.commitsLookedAt == 412 && evidence.sinceChange == nil)
    }

    @Test func emptyHistoryIsNew() {
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 3, history: []))
        #expect(verdict == .new)
        #expect(evidence.summary == "leaked in 3 of 3 attempts at head; no earlier run checked it")
        #expect(evidence.commitsLookedAt == 0 && evidence.recentRuns == 0)
    }

    /// An intermittent key leaking all through the window: three attempts that all leaked tell a
    /// real leak from a low-rate key, not from one leaking in a fifth of its runs or more; one
    /// attempt (reports without attempts) tells it from none.
    @Test(arguments: [
        (0.05, 3, GateRule.Verdict.new), (0.10, 3, .new), (0.30, 3, .flaky), (0.60, 3, .flaky),
        (0.05, 1, .flaky), (0.30, 1, .flaky), (0.60, 1, .flaky),
    ])
    func intermittentHistory(rate: Double, attempts: Int, expected: GateRule.Verdict) {
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: attempts, history: Self.intermittent(rate, commits: 400)))
        #expect(verdict == expected, "rate \(rate), \(attempts) attempts: \(evidence.summary)")
        let measured = Double(evidence.recentLeakedRuns) / Double(evidence.recentRuns)
        #expect(abs(measured - rate) < 0.01, "measured \(measured) for \(rate)")
    }

    /// The head's other environments that confirmed the leak count as more attempts, with the
    /// key's rate there, up to `GateRule.countedSightings` in all; one that did not confirm it
    /// counts nothing.
    @Test(arguments: [
        // (rate here, attempts here, rate there, attempts there, confirmed there, expected)
        (0.05, 1, 0.05, 1, true, GateRule.Verdict.new), (0.05, 1, 0.05, 1, false, .flaky),
        (0.30, 1, 0.30, 1, true, .flaky), (0.05, 1, 0.0, 1, true, .new),
        (0.30, 3, 0.05, 3, true, .flaky), (0.10, 1, 0.10, 3, true, .new), (0.30, 1, 0.30, 3, true, .flaky),
    ])
    func otherEnvironmentsCountUpToThreeAttempts(here: Double, attempts: Int, there: Double, attemptsThere: Int, confirmedThere: Bool,
                                                 expected: GateRule.Verdict) {
        var key = Self.confirmed(attempts: attempts, history: Self.intermittent(here, commits: 400))
        var other = Self.confirmed(attempts: attemptsThere, history: there == 0 ? Self.clean(400) : Self.intermittent(there, commits: 400))
        if !confirmedThere { other.headLeakedAttempts -= 1 }
        key.otherEnvironments["macos"] = other
        let (verdict, evidence) = GateRule.judge(key)
        #expect(verdict == expected, "\(evidence.summary)")
        let counted = confirmedThere ? min(attemptsThere, GateRule.countedSightings - attempts) : 0
        #expect(evidence.otherEnvironments?.first?.countedAttempts == (counted > 0 ? counted : nil))
        #expect(GateRule.readsOtherEnvironments(key) == (attempts < GateRule.countedSightings && pow(here, Double(attempts)) >= GateRule.implausibleChance))
    }

    @Test func summariesSayWhy() {
        let low = GateRule.judge(Self.confirmed(attempts: 3, history: Self.intermittent(0.05, commits: 400))).evidence
        #expect(low.summary == "confirmed in 3 of 3 attempts; its rate of 5% in its last \(low.recentRuns) runs cannot explain that")
        let high = GateRule.judge(Self.confirmed(attempts: 3, history: Self.intermittent(0.3, commits: 200))).evidence
        #expect(high.summary == "confirmed, but leaked in 30% of its last \(high.recentRuns) runs")
        let single = GateRule.judge(Self.confirmed(attempts: 1, history: Self.intermittent(0.3, commits: 200))).evidence
        #expect(single.summary == "leaked at head, as in 30% of its last \(single.recentRuns) runs")
    }

    /// A key that began leaking in a third of its runs only lately: its rate is measured from its
    /// first leak, not diluted by the clean commits before.
    @Test func intermittenceThatStartedLately() {
        let history = Self.intermittent(0.3, commits: 40) + Self.clean(360)
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 3, history: history))
        #expect(verdict == .flaky, "\(evidence.summary)")
        #expect(evidence.recentRuns <= 40 && evidence.commitsLookedAt == 400)
    }

    /// A real leak on a key whose intermittence ended: clean for so many runs that a key leaking
    /// at its old rate would almost surely have leaked. New, with or without attempts.
    @Test(arguments: [3, 1])
    func confirmedLeakAfterIntermittenceEnded(attempts: Int) {
        let history = Self.clean(60) + Self.intermittent(0.3, commits: 200)
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: attempts, history: history))
        #expect(verdict == .new, "\(evidence.summary)")
        #expect(evidence.summary.hasSuffix("0 of its last 60 runs leaked: its intermittence (23% of its last 257 runs) ended"))
    }

    /// Clean for a few runs only: a key leaking in a quarter of its runs does that often.
    @Test func intermittenceNotYetEnded() {
        let history = Self.clean(5) + Self.intermittent(0.3, commits: 200)
        #expect(GateRule.judge(Self.confirmed(attempts: 3, history: history)).verdict == .flaky)
    }

    /// A key clean for hundreds of runs that leaked twice in its last four: 2 of 4 is no 50% key.
    /// Its rate is measured over `minimumMeasuredRuns` runs (10%), and a head whose three attempts
    /// all leaked is new; from one attempt it is flaky.
    @Test func fewRecentLeaksAreMeasuredOverMinimumRuns() {
        let history = Self.clean(1) + Self.leaking(1) + Self.clean(1) + Self.leaking(1) + Self.clean(300)
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 3, history: history))
        #expect(verdict == .new, "\(evidence.summary)")
        #expect(evidence.recentRuns == GateRule.minimumMeasuredRuns && evidence.recentLeakedRuns == 2)
        #expect(evidence.summary == "confirmed in 3 of 3 attempts; its rate of 10% in its last 20 runs cannot explain that")
        #expect(GateRule.judge(Self.confirmed(attempts: 1, history: history)).verdict == .flaky)
    }

    /// A gap is judged against every gap the key had: a key that leaked 120 times in 400 runs
    /// has had 120 gaps, and one of 16 clean runs among them is likely (120 · 0.71^16 ≈ 0.5),
    /// though a single gap that long is not (0.71^16 ≈ 0.004). Its intermittence ends at 31
    /// clean runs (its rate over the 431 runs is 28%: 120 · 0.72^31 < 0.005), not at 30.
    @Test(arguments: [(16, GateRule.Verdict.flaky), (30, .flaky), (31, .new), (40, .new)])
    func intermittenceEndsOverAllItsGaps(clean: Int, expected: GateRule.Verdict) {
        let history = Self.clean(clean) + Self.intermittent(0.3, commits: 400)
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 1, history: history))
        #expect(verdict == expected, "\(clean) clean runs: \(evidence.summary)")
    }

    /// A leak that held (every run, `heldLeakCommits` commits in a row) was fixed and came back:
    /// a regression. Only the runs after the held leak count, whatever came before it.
    @Test func heldLeakFixedThenBack() {
        let history = Self.clean(20) + Self.leaking(GateRule.heldLeakCommits + 2) + Self.intermittent(0.3, commits: 300)
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 3, history: history))
        #expect(verdict == .new)
        #expect(evidence.sinceChange == 20 && evidence.recentRuns == 20 && evidence.recentLeakedRuns == 0)
        #expect(evidence.summary == "leaked in 3 of 3 attempts at head; 0 of the last 20 runs leaked since a held leak ended 20 commits back")
    }

    /// A pull request whose earlier commits leaked in every run: the head's own leak holding,
    /// however short, not a key that leaks now and then.
    @Test func leakHeldUpToHeadIsNotIntermittence() {
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 3, history: Self.leaking(2) + Self.clean(300)))
        #expect(verdict == .new)
        #expect(evidence.summary == "leaked in 3 of 3 attempts at head and in every run of the 2 commits before; 0 of the last 300 runs leaked")
        let intermittent = Self.leaking(1) + Self.intermittent(0.3, commits: 300)
        #expect(GateRule.judge(Self.confirmed(attempts: 3, history: intermittent)).verdict == .flaky)
        let onlyHeld = GateRule.judge(Self.confirmed(attempts: 1, history: Self.leaking(3))).evidence
        #expect(onlyHeld.summary == "leaked at head and in every run of the 3 commits before; no earlier run checked it")
    }

    /// A short real leak on a key otherwise clean — three commits in a row, fixed — is a held leak:
    /// the key's rate outside it (0) cannot explain it, so it is no intermittence, and a confirmed
    /// leak after it is new even from one attempt.
    @Test func shortLeakOnACleanKeyIsHeld() {
        let history = Self.clean(40) + Self.leaking(3) + Self.clean(300)
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 1, history: history))
        #expect(verdict == .new)
        #expect(evidence.sinceChange == 40 && evidence.recentRuns == 40 && evidence.recentLeakedRuns == 0)
        // A key leaking in 30% of its runs makes five in a row often enough over 300 runs: not held.
        let intermittent = Self.clean(2) + Self.leaking(5) + Self.intermittent(0.3, commits: 300)
        let (flaky, measured) = GateRule.judge(Self.confirmed(attempts: 1, history: intermittent))
        #expect(flaky == .flaky && measured.sinceChange == nil)
        // A key that began leaking in 30% of its runs twenty commits ago, three of them in a row:
        // its rate is counted from its first leak, not over the clean commits before, and that
        // rate explains three in a row.
        let young = Self.clean(1) + Self.intermittent(0.3, commits: 17) + Self.leaking(3) + Self.clean(380)
        let (youngVerdict, youngEvidence) = GateRule.judge(Self.confirmed(attempts: 1, history: young))
        #expect(youngVerdict == .flaky && youngEvidence.sinceChange == nil, "\(youngEvidence.summary)")
        // One leaked commit is one sighting, not a held leak.
        let once = GateRule.judge(Self.confirmed(attempts: 1, history: Self.clean(40) + Self.leaking(1) + Self.clean(300))).evidence
        #expect(once.sinceChange == nil && once.recentLeakedRuns == 1)
    }

    /// Fewer commits in a row than a held leak, then leaking again: that is what intermittence does.
    @Test func shortStreaksAreNoHeldLeak() {
        let history = Self.intermittent(0.3, commits: 20) + Self.clean(1) + Self.leaking(GateRule.heldLeakCommits - 1) + Self.clean(1)
            + Self.intermittent(0.3, commits: 100)
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 3, history: history))
        #expect(verdict == .flaky && evidence.sinceChange == nil)
    }

    @Test func unconfirmedAtHeadByAttempts() {
        let key = KeyEvidence(headRuns: 1, headLeakedRuns: 1, headAttempts: 3, headLeakedAttempts: 1, history: Self.clean(400))
        let (verdict, evidence) = GateRule.judge(key)
        #expect(verdict == .flaky && !evidence.confirmedAtHead)
        #expect(evidence.summary == "leaked in 1 of 3 attempts: intermittent at head")
    }

    @Test func unconfirmedAtHeadByRuns() {
        let key = KeyEvidence(headRuns: 2, headLeakedRuns: 1, headAttempts: 2, headLeakedAttempts: 1, history: [])
        let (verdict, evidence) = GateRule.judge(key)
        #expect(verdict == .flaky && !evidence.confirmedAtHead)
        #expect(evidence.summary == "leaked in 1 of 2 runs at head: intermittent at head")
    }

    /// Reports without attempts: each check one attempt. Two runs that both leaked count as two.
    @Test(arguments: [
        (0.0, 1, GateRule.Verdict.new, "leaked at head; 0 of the last 400 runs leaked"),
        (0.0, 2, .new, "leaked in 2 of 2 runs at head; 0 of the last 400 runs leaked"),
        (0.05, 2, .new, "confirmed in 2 of 2 runs; its rate of 5% in its last 380 runs cannot explain that"),
        (0.30, 2, .flaky, "confirmed, but leaked in 30% of its last 396 runs"),
    ])
    func reportsWithoutAttempts(rate: Double, runs: Int, expected: GateRule.Verdict, summary: String) {
        let history = rate == 0 ? Self.clean(400) : Self.intermittent(rate, commits: 400)
        let (verdict, evidence) = GateRule.judge(Self.confirmed(attempts: 1, runs: runs, history: history))
        #expect(verdict == expected)
        #expect(evidence.summary == summary)
    }

    /// Re-runs count run by run: a commit whose two runs disagreed is one leak in two runs.
    @Test func rateCountsRuns() {
        let history = Array(repeating: Tally(runs: 2, leakedRuns: 1), count: 10) + Self.clean(100)
        let evidence = GateRule.judge(Self.confirmed(attempts: 3, history: history)).evidence
        #expect(evidence.recentRuns == 20 && evidence.recentLeakedRuns == 10)
    }

    @Test func evidenceInJSON() throws {
        let evidence = GateRule.judge(Self.confirmed(attempts: 3, history: Self.clean(12))).evidence
        let json = String(decoding: try JSONEncoder().encode(evidence), as: UTF8.self)
        #expect(!json.contains("sinceChange"))
        #expect(try JSONDecoder().decode(GateEvidence.self, from: Data(json.utf8)) == evidence)
    }
}
