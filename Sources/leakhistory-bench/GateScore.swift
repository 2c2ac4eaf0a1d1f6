import Foundation
import LeakReport

/// One scored run of a gate pass: the ground truth when it ran, what the server answered, and
/// for every key `GateRule` judged its evidence — all that scoring needs, so that
/// `LEAKHISTORY_BENCH_GATE_RECORD=FILE` can write a pass's runs (one JSON line each) and
/// `LEAKHISTORY_BENCH_GATE_REPLAY=FILE` can score the rule as built now on them, in seconds,
/// without the pass's hour of uploads. The evidence does not depend on the rule (it is the runs
/// along the head's ancestry), so a replay scores exactly what a pass with the changed rule would.
struct GateRunRecord: Codable {
    var kind: String
    /// "build 12 main commit 40 vs 38", for verbose lines.
    var place: String
    /// New leaks the head's code brought in and the head checked.
    var truth: [Int]
    /// Leaks in the base's code its run did not check.
    var unseenAtBase: [Int]
    /// Keys the server called new without the rule's judgement.
    var newUnjudged: [Int]
    var judged: [JudgedKey]
    /// The situation of each key of `truth`, for a miss, and the server's category of it.
    var situations: [Int: GatePass.Situation]
    var truthCategories: [Int: String]
    /// What each judged or called-new key outside `truth` was, for a false failure.
    var wrong: [Int: WrongKey]

    struct JudgedKey: Codable {
        var key: Int
        /// The server's category ("new", "flaky", or one the rule's verdict does not make alone).
        var category: String
        var summary: String
        /// headRuns, headLeakedRuns, headAttempts, headLeakedAttempts, then the history as
        /// triples of runs, leaked runs and released attempts, newest first.
        var evidence: [Int]
        /// The key's evidence in the head's other environments that the store read
        /// (`KeyEvidence.otherEnvironments`), each as `evidence` is; absent in older recordings.
        var otherEnvironments: [String: [Int]]?

        init(key: Int, category: String, summary: String, _ evidence: KeyEvidence) {
            self.key = key
            self.category = category
            self.summary = summary
            self.evidence = Self.flattened(evidence)
            otherEnvironments = evidence.otherEnvironments.isEmpty ? nil : evidence.otherEnvironments.mapValues(Self.flattened)
        }

        var keyEvidence: KeyEvidence {
            var key = Self.evidence(evidence)
            key.otherEnvironments = (otherEnvironments ?? [:]).mapValues(Self.evidence)
            return key
        }

        private static func flattened(_ evidence: KeyEvidence) -> [Int] {
            [evidence.headRuns, evidence.headLeakedRuns, evidence.headAttempts, evidence.headLeakedAttempts]
                + evidence.history.flatMap { [$0.runs, $0.leakedRuns, $0.releasedAttempts] }
        }

        private static func evidence(_ numbers: [Int]) -> KeyEvidence {
            let history = stride(from: 4, to: numbers.count, by: 3).map {
                KeyEvidence.RunTally(runs: numbers[$0], leakedRuns: numbers[$0 + 1], releasedAttempts: numbers[$0 + 2])
            }
            return KeyEvidence(headRuns: numbers[0], headLeakedRuns: numbers[1], headAttempts: numbers[2],
                               headLeakedAttempts: numbers[3], history: history)
        }

        /// Called new by the rule as built now: its verdict where the server's category was the
        /// verdict's (new or flaky), else what the server said.
        var calledNewNow: (new: Bool, summary: String) {
            guard category == "new" || category == "flaky" else { return (category == "new", summary) }
            let (verdict, evidence) = GateRule.judge(keyEvidence)
            return (verdict == .new, evidence.summary)
        }
    }

    struct WrongKey: Codable {
        /// "not intermittent", "first sighting" or "intermittent, leaked before".
        var what: String
        var rate: Double
        var firstSighting: Bool
    }
}

/// The score of a pass, built run by run (`add`), the same for a live pass and a replay.
struct GateScorer {
    /// What one kind of build (main or pull request) scored.
    struct KindScore {
        var judged = 0
        var withNew = 0
        var passedWithNew = 0
        var passedUndecidable = 0
        var clean = 0
        var falseFailures = 0
        var falseFailuresFirstSighting = 0
    }

    var scores = ["main": KindScore(), "pull request": KindScore()]
    var missed: [String: Int] = [:]
    var missedClearly = 0
    var falseFailureKeys: [String: Int] = [:]
    /// Leaks in the base's code its run did not check that were called new (set aside).
    var calledNewUnseenAtBase = 0

    /// Scores one run whose keys called new are `calledNew` (with each key's sentence); the
    /// verbose notes of its misses and false failures.
    mutating func add(_ record: GateRunRecord, calledNew: Set<Int>, summaries: [Int: String]) -> [String] {
        let truth = Set(record.truth), unseenAtBase = Set(record.unseenAtBase)
        calledNewUnseenAtBase += calledNew.intersection(unseenAtBase).count
        var score = scores[record.kind]!
        defer { scores[record.kind] = score }
        score.judged += 1
        var notes: [String] = []
        if !truth.isEmpty {
            score.withNew += 1
            let passed = truth.subtracting(calledNew)
            guard passed.count == truth.count else { return notes }
            score.passedWithNew += 1
            let situations = passed.map { record.situations[$0]! }
            if situations.allSatisfy(\.undecidable) { score.passedUndecidable += 1 }
            for (key, situation) in zip(passed, situations) {
                let judged = record.judged.first { $0.key == key && ($0.category == "new" || $0.category == "flaky") }
                let landed = judged == nil ? record.truthCategories[key] ?? "not listed" : "flaky"
                missed["\(record.kind): \(situation.name), landed as \(landed)", default: 0] += 1
                if situation.clear { missedClearly += 1 }
                notes.append("missed #\(key) (\(situation.name)) as \(landed): \(summaries[key] ?? "")")
            }
        } else {
            score.clean += 1
            let wrong = calledNew.subtracting(unseenAtBase)
            guard !wrong.isEmpty else { return notes }
            score.falseFailures += 1
            if wrong.allSatisfy({ record.wrong[$0]!.firstSighting }) { score.falseFailuresFirstSighting += 1 }
            for key in wrong {
                let what = record.wrong[key]!
                falseFailureKeys["\(record.kind): \(what.what)", default: 0] += 1
                notes.append("false failure #\(key) (\(what.what), rate \(what.rate)): \(summaries[key] ?? "")")
            }
        }
        return notes
    }

    /// A recording's runs scored by the rule as built now (`LEAKHISTORY_BENCH_GATE_REPLAY`).
    static func replay(_ path: String, verbose: Bool) throws -> GateScorer {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw BenchError("cannot read the gate recording \(path): write one with LEAKHISTORY_BENCH_GATE_RECORD=\(path)")
        }
        var scorer = GateScorer()
        let decoder = JSONDecoder()
        for (number, line) in text.split(separator: "\n").enumerated() {
            guard let record = try? decoder.decode(GateRunRecord.self, from: Data(line.utf8)) else {
                throw BenchError("\(path):\(number + 1): not a gate run record")
            }
            var calledNew = Set(record.newUnjudged), summaries: [Int: String] = [:]
            for judged in record.judged {
                let now = judged.calledNewNow
                if now.new { calledNew.insert(judged.key) }
                summaries[judged.key] = now.summary
            }
            let notes = scorer.add(record, calledNew: calledNew, summaries: summaries)
            if verbose, !notes.isEmpty {
                FileHandle.standardError.write(Data("[replay] \(record.place): \(notes.joined(separator: "; "))\n".utf8))
            }
        }
        return scorer
    }
}

extension GateScorer {
    /// A replay's score: per build kind the false failures and new leaks passed, and what they were.
    func render(title: String) -> String {
        var lines = [title]
        for kind in ["main", "pull request"] {
            let score = scores[kind]!
            lines.append("  \(kind): false failures \(score.falseFailures) of \(score.clean) (\(GateBenchmark.percent(score.falseFailures, score.clean))), "
                + "\(score.falseFailuresFirstSighting) first sightings; new leaks passed \(score.passedWithNew) of \(score.withNew) "
                + "(\(GateBenchmark.percent(score.passedWithNew, score.withNew))), \(score.passedUndecidable) not decidable")
        }
        lines.append("  new leaks passed on a key clean or intermittent < \(Int(GateBenchmark.lowRate * 100))%: \(missedClearly)")
        for (what, count) in missed.sorted(by: { $0.key < $1.key }) { lines.append("    passed: \(what): \(count)") }
        for (what, count) in falseFailureKeys.sorted(by: { $0.key < $1.key }) { lines.append("    keys wrongly new: \(what): \(count)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
