import Foundation

/// The gate's one rule: whether a key that leaked at head, and not (confirmed) at base, is a
/// `new` leak (fails the build) or `flaky` (the key's own intermittence explains it).
///
/// 1. Not confirmed at head (a run or an attempt there released it): flaky, whatever the history.
/// 2. A leak confirmed at the newest commits up to the head (every run leaked it: a pull
///    request's earlier commits) is the head's leak holding, not evidence of intermittence: the
///    key's history is read before it. Every *held leak* in that history (`heldLeakCommits`
///    commits or more in a row confirmed: a real leak, whose end was a fix) is left out: its runs say
///    nothing about the intermittence beside it, and the runs before and after it still count.
///    The key's rate is measured over what is left, from its oldest leak there on, in runs.
/// 3. Evidence that a key leaking at that rate would produce only with a chance below
///    `implausibleChance` is not its intermittence: clean in so many runs since its last leak
///    that no clean spell after any of its leaks would plausibly be that long means its
///    intermittence ended (rate 0); a head whose every attempt leaked, each with the key's
///    rate, means a real leak.
///
/// ```swift
/// let (verdict, evidence) = GateRule.judge(keyEvidence)
/// print(verdict, evidence.summary)   // new "leaked in 3 of 3 attempts at head; 0 of the last 412 runs leaked"
/// ```
public enum GateRule {
    public enum Verdict: String, Codable, Sendable {
        case new, flaky
    }

    /// The chance below which the gate no longer believes the key's intermittence explains what
    /// it sees. It is the error the gate accepts per judged leak: a key intermittent at rate p is
    /// failed wrongly when all A attempts at head leak (p^A) — 0.5% is one false failure in two
    /// hundred such sightings, below the 1% of builds a team notices, and it puts the line between
    /// a key at ~17% (flaky with three attempts: 0.17^3 ≈ 0.005) and one at 5% (0.05^3 = 0.0001,
    /// new) — three attempts tell a real leak from a low-rate key, not from a key leaking in a
    /// third of its runs. The same chance ends intermittence (`MeasuredStretch.ended`).
    public static let implausibleChance = 0.005

    /// A key that leaked at this many checked commits in a row, in every run, had a real leak, and
    /// its end was a fix: one change of state is not flakiness. Intermittent keys leak in up to
    /// about a third of their runs, and such a key leaks eight commits in a row with a chance of
    /// (1/3)^8 ≈ 0.00015, far below `implausibleChance`, while real leaks mostly hold longer
    /// than eight commits before they are fixed.
    public static let heldLeakCommits = 8

    /// Judges one key: its verdict, and the evidence with the sentence that explains it.
    public static func judge(_ key: KeyEvidence) -> (verdict: Verdict, evidence: GateEvidence) {
        let stretch = MeasuredStretch(key.history)
        let attempts = max(key.headLeakedAttempts, 1)
        let verdict: Verdict
        if !key.confirmedAtHead {
            verdict = .flaky
        } else if stretch.rate == 0 || stretch.ended {
            verdict = .new
        } else {
            verdict = pow(stretch.rate, Double(attempts)) >= implausibleChance ? .flaky : .new
        }
        let evidence = GateEvidence(
            confirmedAtHead: key.confirmedAtHead, headRuns: key.headRuns, headLeakedRuns: key.headLeakedRuns,
            headAttempts: key.headAttempts, headLeakedAttempts: key.headLeakedAttempts,
            recentRuns: stretch.runs, recentLeakedRuns: stretch.leakedRuns, commitsLookedAt: key.history.count,
            sinceChange: stretch.sinceChange, summary: summary(key, stretch, verdict))
        return (verdict, evidence)
    }

    /// The part of a key's history its rate is measured over.
    struct MeasuredStretch {
        /// Runs from the key's oldest leak outside held leaks (or the window's start) to the
        /// base, held leaks left out; every such run of the window when it did not leak there.
        var runs = 0
        var leakedRuns = 0
        /// Runs since the newest commit that leaked the key outside held leaks.
        var cleanRuns = 0
        /// Commits back to the newest commit of the newest held leak, if any.
        var sinceChange: Int?
        /// The newest commits, up to the head, whose leak was confirmed: the head's leak holding.
        var heldToHead = 0

        var rate: Double { runs == 0 ? 0 : Double(leakedRuns) / Double(runs) }

        /// Clean in so many runs that a key leaking at `rate` would almost surely have leaked.
        ///
        /// A key leaking at rate p is clean for c runs after a given leak with a chance of
        /// (1-p)^c, but the spell now is not the only place it could have been that clean: every
        /// one of its N·p leaks in the N measured runs (`leakedRuns`) started a clean spell, and
        /// the gate asks after each sighting. So the expected number of spells that long, N·p·(1-p)^c,
        /// must fall below `implausibleChance`: a 30% key with 60 leaks ends after 27 clean runs
        /// (not 15), a 5% key with 20 leaks after 162 (not 104), and a key seen leaking once after
        /// as many as before.
        var ended: Bool {
            leakedRuns > 0 && Double(leakedRuns) * pow(1 - rate, Double(cleanRuns)) < GateRule.implausibleChance
        }

        init(_ history: [KeyEvidence.RunTally]) {
            heldToHead = history.prefix { $0.confirmedLeak }.count
            // The history after the head's leak holding, held leaks left out, newest first.
            var measured: [KeyEvidence.RunTally] = []
            var index = heldToHead
            while index < history.count {
                let streak = history[index...].prefix { $0.confirmedLeak }.count
                if streak == 0 {
                    measured.append(history[index])
                    index += 1
                    continue
                }
                if streak >= GateRule.heldLeakCommits {
                    sinceChange = sinceChange ?? index
                } else {
                    measured += history[index..<(index + streak)]
                }
                index += streak
            }
            guard let oldestLeak = measured.lastIndex(where: { $0.leakedRuns > 0 }) else {
                runs = measured.reduce(0) { $0 + $1.runs }
                return
            }
            for tally in measured[...oldestLeak] {
                runs += tally.runs
                leakedRuns += tally.leakedRuns
            }
            let newestLeak = measured.firstIndex { $0.leakedRuns > 0 }!
            cleanRuns = measured[..<newestLeak].reduce(0) { $0 + $1.runs }
        }
    }

    /// The one sentence of a verdict, built from the numbers the evidence carries.
    static func summary(_ key: KeyEvidence, _ stretch: MeasuredStretch, _ verdict: Verdict) -> String {
        let byAttempts = key.headAttempts > key.headRuns
        if !key.confirmedAtHead {
            return byAttempts
                ? "leaked in \(key.headLeakedAttempts) of \(key.headAttempts) attempts: intermittent at head"
                : "leaked in \(key.headLeakedRuns) of \(key.headRuns) runs at head: intermittent at head"
        }
        let heldToHead = stretch.heldToHead == 0 ? "" : " and in every run of the \(stretch.heldToHead) commits before"
        let atHead = (byAttempts ? "leaked in \(key.headLeakedAttempts) of \(key.headAttempts) attempts at head"
            : key.headRuns > 1 ? "leaked in \(key.headLeakedRuns) of \(key.headRuns) runs at head"
            : "leaked at head") + heldToHead
        let confirmed = byAttempts ? "confirmed in \(key.headLeakedAttempts) of \(key.headAttempts) attempts"
            : key.headRuns > 1 ? "confirmed in \(key.headLeakedRuns) of \(key.headRuns) runs"
            : "leaked at head"
        if stretch.runs == 0 { return "\(atHead); no earlier run checked it" }
        let heldLeak = stretch.sinceChange.map { "; not counting a held leak that ended \($0) commits back" } ?? ""
        if stretch.leakedRuns == 0 { return "\(atHead); 0 of the last \(stretch.runs) runs leaked\(heldLeak)" }
        let rate = percent(stretch.rate), runs = "its last \(stretch.runs) runs"
        if stretch.ended {
            return "\(atHead); 0 of its last \(stretch.cleanRuns) runs leaked: its intermittence (\(rate) of \(runs)) ended\(heldLeak)"
        }
        switch verdict {
        case .flaky:
            return (key.headAttempts > 1 ? "confirmed, but leaked in \(rate) of \(runs)" : "leaked at head, as in \(rate) of \(runs)") + heldLeak
        case .new: return "\(confirmed); its rate of \(rate) in \(runs) cannot explain that\(heldLeak)"
        }
    }

    /// A rate as a person reads it: whole percents, one decimal below 1%.
    static func percent(_ rate: Double) -> String {
        let value = rate * 100
        return value < 1 ? String(format: "%.1f%%", value) : "\(Int(value.rounded()))%"
    }
}
