import Foundation
import LeakReport
@testable import LeakStore

/// A small seeded project history with every shape the store must answer for: merges and a
/// feature branch, re-runs, partial runs, broken-harness (suspect) runs beside usable ones,
/// errored checks before and after passing ones of the same key, late releases, known issues,
/// retain paths and messages, a key whose file or line moves, a passing check that carries a
/// message, and two environments. `answers(_:)` asks the store every query the server and the
/// dashboard ask, and prints the answers in one canonical text, so that two stores holding the
/// same uploads can be compared answer for answer (or a store against answers recorded earlier).
struct AnswerHistory {
    static let project = "app"
    let commits: [String]
    let runs: [RunRecord]
    let scenarios: [String]
    let types: [String]

    init(seed: UInt64 = 7, commitCount: Int = 36, keyCount: Int = 30) {
        var random = SplitMix64(seed: seed)
        func sha(_ index: Int) -> String {
            let hex = String(index, radix: 16)
            return String(repeating: "0", count: 40 - hex.count - 1) + "c" + hex
        }
        let keys = (0..<keyCount).map { (scenario: "Suite\($0 % 5)Tests/test\($0)()", type: "App.Model\($0 % 11)") }
        scenarios = Array(Set(keys.map(\.scenario))).sorted()
        types = Array(Set(keys.map(\.type))).sorted()
        var commits: [String] = []
        var runs: [RunRecord] = []
        var leaking: Set<Int> = [3]
        var runNumber = 0
        for index in 0..<commitCount {
            commits.append(sha(index))
            // Commits 10…14 are a feature branch off commit 9, merged back by commit 15.
            let onBranch = (10...14).contains(index)
            let parents: [String] = switch index {
            case 0: []
            case 10: [sha(9)]
            case 15: [sha(9), sha(14)]
            default: [sha(index - 1)]
            }
            // Sorted: a Set's order changes from one process to the next.
            if random.chance(0.15), let fixed = leaking.sorted().randomElement(using: &random) { leaking.remove(fixed) }
            if random.chance(0.2) { leaking.insert(Int(random.next(below: UInt64(keyCount)))) }
            // Some commits have no upload at all.
            guard index == 0 || !random.chance(0.1) else { continue }
            let attempts = 1 + (random.chance(0.25) ? 1 : 0) + (random.chance(0.05) ? 1 : 0)
            for attempt in 0..<attempts {
                runNumber += 1
                let broken = attempt == 0 && random.chance(0.08)
                let partial = random.chance(0.15)
                let environment = random.chance(0.2) ? "macos" : "linux"
                var checks: [CheckRecord] = []
                for (keyIndex, key) in keys.enumerated() {
                    if partial && random.chance(0.3) { continue }
                    let at = Date(timeIntervalSince1970: 1_800_000_000 + Double(runNumber * 600 + keyIndex))
                    // A key whose line moved at commit 20, and one whose file did.
                    let line = 10 + keyIndex + (keyIndex == 4 && index >= 20 ? 7 : 0)
                    let file = keyIndex == 5 && index >= 20 ? "Tests/Moved.swift" : "Tests/Suite\(keyIndex % 5).swift"
                    var outcomes: [CheckOutcome] = []
                    if broken { outcomes = [random.chance(0.9) ? .leaked : .deallocated] }
                    else if random.chance(0.04) { outcomes = [.error, .deallocated] }
                    else if random.chance(0.03) { outcomes = [.deallocated, .error] }
                    else if random.chance(0.03) { outcomes = [.lateRelease] }
                    else if leaking.contains(keyIndex) || (keyIndex == 7 && random.chance(0.3)) { outcomes = [.leaked] }
                    else { outcomes = [.deallocated] }
                    for outcome in outcomes {
                        let leaked = outcome == .leaked
                        let path = leaked ? [RetainPathStep(holder: key.type, property: "owner", kind: .strong),
                                             RetainPathStep(holder: "App.Owner\(keyIndex % 3)", property: "model", kind: .strong)]
                                          : nil
                        let message: String? = switch outcome {
                        case .leaked: "\(key.type) is still alive after 2000 ms"
                        case .error: "the lifecycle threw: boom \(keyIndex)"
                        case .deallocated where keyIndex == 9: "released after a retry"
                        default: nil
                        }
                        checks.append(CheckRecord(
                            scenario: key.scenario, file: file, line: line, type: key.type, outcome: outcome,
                            waitedMs: outcome == .leaked ? 2_000 : Double(random.next(below: 40)) / 8, timeoutMs: 2_000,
                            lifecycle: keyIndex % 4 == 0 ? "dismiss" : "none", retainPath: path,
                            fingerprint: leaked ? "fp-\(keyIndex % 9)" : nil, message: message, timestamp: at,
                            source: .test, knownIssue: leaked && keyIndex == 11 ? true : nil))
                    }
                }
                runs.append(RunRecord(
                    project: Self.project, commit: sha(index), branch: onBranch ? "feature" : "main", parents: parents,
                    environment: environment, runKey: "run-\(runNumber)",
                    startedAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(runNumber * 600)), checks: checks))
            }
        }
        self.commits = commits
        self.runs = runs
    }

    /// Creates the project and uploads every run.
    func upload(into store: LeakStore) throws {
        _ = try store.createProject(Self.project)
        for run in runs { _ = try store.ingest(run) }
    }

    /// Every query's answer, by question, each in a canonical text — in the shape the routes
    /// send it (the wire types of `LeakReport/API`, mapped from the store's domain values as the
    /// routes map them), so that the answers compare with those recorded when the store built
    /// the wire types itself.
    func answers(_ store: LeakStore) throws -> [(question: String, answer: String)] {
        var answers: [(question: String, answer: String)] = []
        func record(_ question: String, _ answer: Any) {
            answers.append((question, CanonicalText.render(answer)))
        }
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let project = Self.project
        for environment in ["linux", "macos"] {
            let candidates = Array(commits.reversed())
            let found = try store.resolveBase(project: project, environment: environment, candidates: candidates)
            record("resolve \(environment)", ResolveResponse(base: found.map { candidates[$0] }, distance: found,
                                                             searched: found.map { $0 + 1 } ?? candidates.count))
            for (index, head) in commits.enumerated() {
                record("diff none..\(index) \(environment)", wire(try store.diff(
                    project: project, base: nil, head: head, environment: environment, mergeBase: nil, after: nil, now: now), environment: environment))
                for back in [1, 3] where index >= back {
                    let base = commits[index - back]
                    record("diff \(index - back)..\(index) \(environment)", wire(try store.diff(
                        project: project, base: base, head: head, environment: environment, mergeBase: base,
                        after: nil, now: now), environment: environment))
                }
                if index >= 6 {
                    record("diff fell back \(index - 4)..\(index) \(environment)", wire(try store.diff(
                        project: project, base: commits[index - 4], head: head, environment: environment,
                        mergeBase: commits[index - 6], after: commits[index - 5], now: now), environment: environment))
                }
            }
            for branch in ["main", "feature"] {
                let leaking = try store.leakingTypes(project: project, branch: branch, environment: environment)
                record("types \(branch) \(environment)", TypesResponse(branch: branch, head: leaking.head, types: leaking.types.map {
                    TypesResponse.Summary(type: $0.type, leakingScenarios: $0.leakingScenarios, firstSeen: $0.firstSeen,
                                          lastSeen: $0.lastSeen, direction: TypesResponse.Direction(rawValue: "\($0.direction)")!)
                }))
                for type in types {
                    for limit in [1_000, 5] {
                        let points = try store.trend(project: project, type: type, branch: branch, environment: environment, limit: limit)
                        record("trend \(limit == 5 ? "5 " : "")\(type) \(branch) \(environment)", TrendResponse(
                            type: type, branch: branch, environment: environment, points: points.map {
                                TrendResponse.Point(commit: $0.commit, at: $0.at, leakedKeys: $0.leakedKeys, checkedKeys: $0.checkedKeys,
                                                    scenarios: $0.scenarios, fingerprints: $0.fingerprints)
                            }))
                    }
                    record("type leaks \(type) \(branch) \(environment)", try store.typeLeaks(
                        project: project, type: type, branch: branch, environment: environment, limit: 100))
                }
            }
            for scenario in scenarios {
                record("history \(scenario) \(environment)", try store.scenarioHistory(
                    project: project, scenario: scenario, branch: nil, environment: environment, limit: 1_000))
                record("history 4 \(scenario) \(environment)", try store.scenarioHistory(
                    project: project, scenario: scenario, branch: nil, environment: environment, limit: 4))
            }
        }
        for limit in [5, 1_000] {
            record("activity \(limit)", try store.activity(project: project, limit: limit))
        }
        for (index, sha) in commits.enumerated() {
            // Every page of 2 leaks put together: the answer the unpaged route gave.
            var text = CanonicalText.render(try commitPage(store, sha: sha) as Any)
            if text.hasSuffix("next: nil\n") { text.removeLast("next: nil\n".count) }
            answers.append(("commit \(index)", text))
        }
        return answers
    }

    /// A diff as the route sends it.
    private func wire(_ diff: CommitDiff, environment: String) -> DiffResponse {
        func side(_ side: CommitDiff.Side) -> DiffResponse.Side {
            DiffResponse.Side(commit: side.commit, runs: side.runs, suspectRuns: side.suspectRuns.isEmpty ? nil : side.suspectRuns.map {
                DiffResponse.SuspectRun(runID: $0.runID, checks: $0.checks, leaked: $0.leaked, errors: $0.errors)
            })
        }
        return DiffResponse(project: Self.project, environment: environment, base: diff.base.map(side),
                            head: side(diff.head), diff: diff.leaks)
    }

    /// The commit with the leaks of all its pages, read `pageSize` at a time.
    func commitPage(_ store: LeakStore, sha: String, pageSize: Int = 2) throws -> CommitSummary? {
        guard var whole = try store.commit(project: Self.project, sha: sha, limit: pageSize, cursor: nil) else { return nil }
        var next = whole.next
        while let cursor = next {
            guard let page = try store.commit(project: Self.project, sha: sha, limit: pageSize, cursor: CommitCursor(cursor)) else {
                throw TestDatabaseError("commit \(sha) vanished between two pages")
            }
            precondition(page.runs.reduce(0) { $0 + $1.leaks.count } <= pageSize)
            for index in whole.runs.indices { whole.runs[index].leaks += page.runs[index].leaks }
            next = page.next
        }
        whole.next = nil
        return whole
    }
}

/// Any value as indented `label: value` lines, from its mirror, without type names (so that a
/// type moving between modules does not change the text); dictionaries sorted by key.
enum CanonicalText {
    static func render(_ value: Any, indent: String = "") -> String {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return indent + "nil\n" }
            return render(wrapped, indent: indent)
        case .collection, .set:
            let items = mirror.children.map { render($0.value, indent: indent + "  ") }
            let sorted = mirror.displayStyle == .set ? items.sorted() : items
            return indent + "[\n" + sorted.map { indent + "-\n" + $0 }.joined() + indent + "]\n"
        case .dictionary:
            let pairs = mirror.children.map { pair -> (String, String) in
                let parts = Array(Mirror(reflecting: pair.value).children)
                return (String(describing: parts[0].value), render(parts[1].value, indent: indent + "  "))
            }.sorted { $0.0 < $1.0 }
            return pairs.map { indent + $0.0 + ":\n" + $0.1 }.joined()
        case .struct, .class, .tuple:
            // A page's `next` that is nil is left out, as the wire leaves it out: an unpaged
            // answer and the last page of a paged one are the same text. A diff entry's `evidence`
            // (the gate's, issue 45) is left out: it came after these answers were recorded, from
            // the same counts the categories are, and its own tests read it on both engines. A
            // path step's `isPossible` (issue 49) is left out when false, as the wire leaves it out.
            return mirror.children.filter(isShown).map { child in
                let label = child.label ?? "_"
                let inner = render(child.value, indent: indent + "  ")
                return inner.contains("\n") && inner.split(separator: "\n").count > 1
                    ? indent + label + ":\n" + inner
                    : indent + label + ": " + inner.trimmingCharacters(in: .whitespaces)
            }.joined()
        case .enum:
            if mirror.children.isEmpty { return indent + String(describing: value) + "\n" }
            return indent + String(describing: value) + "\n"
        default:
            return indent + String(describing: value) + "\n"
        }
    }

    /// Whether `render` shows a member (see its struct case).
    private static func isShown(_ child: Mirror.Child) -> Bool {
        switch child.label {
        case "next": !isNil(child.value)
        case "evidence": false
        case "isPossible": (child.value as? Bool) != false
        default: true
        }
    }

    private static func isNil(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }
}
