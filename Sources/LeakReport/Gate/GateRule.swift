import Foundation

/// The gate's one rule: whether a key that leaked at head, and not (confirmed) at base, is a
/// `new` leak (fails the build) or `flaky` (the key's own intermittence explains it).
///
/// 1. Not confirmed at head (a run or an attempt there released it): flaky, whatever the history.
/// 2. A leak confirmed at the newest commits up to the head (every run leaked it: a pull
///    request's earlier commits) is the head's leak holding, not evidence of intermittence: the
///    key's history is read before it. The measured stretch is that history after the most recent
///    *held leak* (commits in a row confirmed that the key's rate outside them cannot explain, or
///    `heldLeakCommits` of them: a real leak, whose end was a fix; `newestHeldLeak`).
///    The key's rate is measured over that stretch from its oldest leak there on, in runs (at
///    least `minimumMeasuredRuns` of them).
/// 3. Evidence that a key leaking at that rate would produce only with a chance below
///    `implausibleChance` is not its intermittence: clean in so many runs since its last leak
///    that it would almost surely have leaked means its intermittence ended (rate 0); a head
///    whose every attempt leaked, each with the key's rate, means a real leak.
/// 4. The head's other environments that leaked the key in every run and attempt count as more
///    attempts, each with the key's rate there (`KeyEvidence.otherEnvironments`), up to
///    `countedSightings` in all: the chance that intermittence makes all of them is the
///    product. A clean run elsewhere refutes nothing (a leak can be one platform's), so it is
///    not read.
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
    /// third of its runs. The same chance ends intermittence, counted over every gap the key had:
    /// each of its L leaks starts a clean gap, one of c runs comes up with a chance of
    /// L·(1-p)^c, so a 30% key with 120 leaks clean for 29 runs, or a 5% key with 20 leaks for
    /// 162, has stopped leaking.
    public static let implausibleChance = 0.005

    /// A key that leaked at this many checked commits in a row, in every run, had a real leak, and
    /// its end was a fix: one change of state is not flakiness. Intermittent keys leak in up to
    /// about a third of their runs, and such a key leaks eight commits in a row with a chance of
    /// (1/3)^8 ≈ 0.00015, far below `implausibleChance`, while real leaks mostly hold longer
    /// than eight commits before they are fixed.
    public static let heldLeakCommits = 8

    /// A key's rate is measured over at least this many runs (its newest, when its leaks span
    /// fewer and the window has them). A rate counted from the key's oldest leak over a handful
    /// of runs says little — 2 leaks in 4 runs is anywhere from 7% to 93% (95% interval) — and
    /// would call a low-rate key that leaked twice lately a third-of-the-time key, whose real
    /// leak then passes. Twenty runs hold about three leaks of a key at the 17% that three
    /// attempts tell apart; a key that began leaking at a third of its runs fewer than twenty
    /// runs ago is measured lower than it is, and its sightings fail a build until it has.
    public static let minimumMeasuredRuns = 20

    /// At most this many attempts at head count: the key's own (all of them, however many), then
    /// those of the head's other environments, by name, while there is room. Two environments
    /// without attempts are judged as two attempts are. Not more: `implausibleChance` draws its
    /// line between a key at 5% and one at 17% for three attempts, and a key leaking in a third
    /// of its runs, confirmed in three attempts in each of two environments, would be called new
    /// at 0.35^6 ≈ 0.002 — a chance every build gives each such key again.
    public static let countedSightings = 3

    /// Judges one key: its verdict, and the evidence with the sentence that explains it.
    public static func judge(_ key: KeyEvidence) -> (verdict: Verdict, evidence: GateEvidence) {
        let stretch = MeasuredStretch(key.history)
        let attempts = max(key.headLeakedAttempts, 1)
        // The other environments' attempts, in the order of their names, while there is room.
        var room = countedSightings - attempts
        let others = key.otherEnvironments.filter(\.value.confirmedAtHead).sorted { $0.key < $1.key }.compactMap { other in
            let counted = min(max(other.value.headLeakedAttempts, 1), room)
            room -= counted
            return counted > 0 ? Sighting(environment: other.key, attempts: counted, stretch: MeasuredStretch(other.value.history)) : nil
        }
        let verdict: Verdict
        if !key.confirmedAtHead {
            verdict = .flaky
        } else {
            let chance = others.reduce(intermittenceChance(stretch, attempts: attempts)) {
                $0 * intermittenceChance($1.stretch, attempts: $1.attempts)
            }
            verdict = chance >= implausibleChance ? .flaky : .new
        }
        let evidence = GateEvidence(
            confirmedAtHead: key.confirmedAtHead, headRuns: key.headRuns, headLeakedRuns: key.headLeakedRuns,
            headAttempts: key.headAttempts, headLeakedAttempts: key.headLeakedAttempts,
            recentRuns: stretch.runs, recentLeakedRuns: stretch.leakedRuns, commitsLookedAt: key.history.count,
            sinceChange: stretch.sinceChange,
            otherEnvironments: key.confirmedAtHead && !others.isEmpty ? others.map {
                GateEvidence.OtherEnvironment(environment: $0.environment, countedAttempts: $0.attempts,
                                              recentRuns: $0.stretch.runs, recentLeakedRuns: $0.stretch.leakedRuns)
            } : nil,
            summary: summary(key, stretch, others, verdict))
        return (verdict, evidence)
    }

    /// Whether the key's verdict waits on the head's other environments: its leak is confirmed
    /// at head, and its own rate explains it (`KeyEvidence.otherEnvironments` could make it new).
    /// The store reads them for such keys alone.
    public static func readsOtherEnvironments(_ key: KeyEvidence) -> Bool {
        let attempts = max(key.headLeakedAttempts, 1)
        return key.confirmedAtHead && attempts < countedSightings
            && intermittenceChance(MeasuredStretch(key.history), attempts: attempts) >= implausibleChance
    }

    /// The chance that a key's intermittence, at the rate measured in its history, leaks it in
    /// `attempts` attempts in a row: 0 when the history shows no intermittence (clean, or ended).
    static func intermittenceChance(_ stretch: MeasuredStretch, attempts: Int) -> Double {
        stretch.rate == 0 || stretch.ended ? 0 : pow(stretch.rate, Double(attempts))
    }

    /// The key confirmed at head in another environment: the attempts there the chance counts,
    /// and its history there.
    struct Sighting {
        var environment: String
        var attempts: Int
        var stretch: MeasuredStretch
    }

    /// The part of a key's history its rate is measured over.
    struct MeasuredStretch {
        /// Runs from the key's oldest leak after the held leak (or the window's start) to the
        /// base, at least `minimumMeasuredRuns` of the stretch; every run of the stretch when it
        /// did not leak there.
        var runs = 0
        var leakedRuns = 0
        /// Runs since the newest commit that leaked the key.
        var cleanRuns = 0
        /// Commits back to the newest commit of the held leak, if any.
        var sinceChange: Int?
        /// The newest commits, up to the head, whose leak was confirmed: the head's leak holding.
        var heldToHead = 0

        var rate: Double { runs == 0 ? 0 : Double(leakedRuns) / Double(runs) }

        /// Clean in so many runs that a key leaking at `rate` would almost surely have leaked: a gap
        /// this long after any of its `leakedRuns` leaks has a chance below `implausibleChance`
        /// (one gap's chance alone, (1-p)^c, would end a key's intermittence at its first long
        /// gap, and a key leaking for hundreds of runs has many).
        var ended: Bool { leakedRuns > 0 && Double(leakedRuns) * pow(1 - rate, Double(cleanRuns)) < GateRule.implausibleChance }

        init(_ history: [KeyEvidence.RunTally]) {
            heldToHead = history.prefix { $0.confirmedLeak }.count
            let end = GateRule.newestHeldLeak(in: history, after: heldToHead)
            sinceChange = end
            let window = history[heldToHead..<max(end ?? history.count, heldToHead)]
            guard let oldestLeak = window.lastIndex(where: { $0.leakedRuns > 0 }) else {
                runs = window.reduce(0) { $0 + $1.runs }
                return
            }
            for tally in window[...oldestLeak] {
                runs += tally.runs
                leakedRuns += tally.leakedRuns
            }
            let newestLeak = window.firstIndex { $0.leakedRuns > 0 }!
            cleanRuns = window[..<newestLeak].reduce(0) { $0 + $1.runs }
            runs = max(runs, min(window.reduce(0) { $0 + $1.runs }, GateRule.minimumMeasuredRuns))
        }
    }

    /// Where the newest held leak after the head's own commits starts (its newest commit), if
    /// any. A run of k commits in a row whose leak was confirmed is a held leak — a real leak,
    /// whose end was a fix — when it is `heldLeakCommits` long, or when it is two or more (one
    /// leaked commit is one sighting) and the key's own rate p outside it cannot explain it: a
    /// key leaking at p makes such a run at each of the R runs outside it with a chance of p^k,
    /// so R·p^k below `implausibleChance`. R and p count from the key's oldest leak on, as its
    /// rate does: the clean years before a key began leaking say nothing of how often it leaks
    /// now. A key clean but for a three-commit leak measures 0 after it; a key leaking in 30% of
    /// 400 runs needs the full `heldLeakCommits` (400 · 0.3^8 ≈ 0.03), and one that began
    /// leaking in 30% of its runs twenty commits ago is not held by three in a row.
    static func newestHeldLeak(in history: [KeyEvidence.RunTally], after start: Int) -> Int? {
        guard let oldestLeak = history[start...].lastIndex(where: { $0.leakedRuns > 0 }) else { return nil }
        let window = history[start...oldestLeak]
        let runs = window.reduce(0) { $0 + $1.runs }, leakedRuns = window.reduce(0) { $0 + $1.leakedRuns }
        var index = start
        while index <= oldestLeak {
            let length = history[index...].prefix { $0.confirmedLeak }.count
            guard length > 0 else {
                index += 1
                continue
            }
            let held = history[index..<(index + length)].reduce((runs: 0, leaked: 0)) { ($0.runs + $1.runs, $0.leaked + $1.leakedRuns) }
            let restRuns = runs - held.runs
            let restRate = restRuns == 0 ? 0 : Double(leakedRuns - held.leaked) / Double(restRuns)
            if length >= GateRule.heldLeakCommits
                || (length >= 2 && Double(restRuns) * pow(restRate, Double(length)) < GateRule.implausibleChance) {
                return index
            }
            index += length
        }
        return nil
    }

    /// The one sentence of a verdict, built from the numbers the evidence carries.
    static func summary(_ key: KeyEvidence, _ stretch: MeasuredStretch, _ others: [Sighting], _ verdict: Verdict) -> String {
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
        let heldLeak = stretch.sinceChange.map { " since a held leak ended \($0) commits back" } ?? ""
        if stretch.leakedRuns == 0 { return "\(atHead); 0 of the last \(stretch.runs) runs leaked\(heldLeak)" }
        let rate = percent(stretch.rate), runs = "its last \(stretch.runs) runs"
        if stretch.ended {
            return "\(atHead); 0 of its last \(stretch.cleanRuns) runs leaked: its intermittence (\(rate) of \(runs)) ended"
        }
        let own = key.headAttempts > 1 ? "confirmed, but leaked in \(rate) of \(runs)" : "leaked at head, as in \(rate) of \(runs)"
        guard !others.isEmpty else {
            switch verdict {
            case .flaky: return own
            case .new: return "\(confirmed); its rate of \(rate) in \(runs) cannot explain that"
            }
        }
        let elsewhere = others.map {
            "in \($0.environment), where \($0.stretch.leakedRuns) of its last \($0.stretch.runs) runs leaked"
        }.joined(separator: ", ")
        switch verdict {
        case .flaky: return "\(own); also at head \(elsewhere)"
        case .new: return "\(own), and at head \(elsewhere): its rates cannot explain \(others.count == 1 ? "both" : "them all")"
        }
    }

    /// A rate as a person reads it: whole percents, one decimal below 1%.
    static func percent(_ rate: Double) -> String {
        let value = rate * 100
        return value < 1 ? String(format: "%.1f%%", value) : "\(Int(value.rounded()))%"
    }
}
