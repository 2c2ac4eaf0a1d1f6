import Foundation
import LeakReport
import LeakServer
import LeakStore

/// One scored pass of `leakhistory-bench gate`: a `GateHistory`'s builds, in the order CI ran
/// them, each run judged by `leakhistory check` against a server of its own, with reports
/// written with `attempts` confirmation attempts (1: reports without attempts).
struct GatePass {
    let history: GateHistory
    let sha: [Int: String]
    let repository: URL
    let binary: String
    let folder: URL
    let attempts: Int

    struct Outcome: Sendable {
        var table: BenchmarkTable
        var summaryLine: String
    }

    /// The part of `check --format json` the score reads.
    struct Verdict: Decodable {
        struct Entry: Decodable {
            struct Evidence: Decodable { var summary: String }
            var category: String
            var scenario: String
            var type: String
            var evidence: Evidence?
        }
        var result: String
        var entries: [Entry]
    }

    /// What a run at one commit in one environment has shown so far (usable runs only).
    struct Seen {
        var usable: Set<Int> = []
        var checked: [Int: Set<Int>] = [:]
        var leaked: [Int: Set<Int>] = [:]
        /// The runs uploaded at each commit so far, usable or not.
        var runs: [Int: [GateHistory.Run]] = [:]
    }

    func run() throws -> Outcome {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var configuration = ServerConfiguration()
        configuration.logRequests = false
        configuration.port = 0
        configuration.database = folder.appendingPathComponent("gate.sqlite").path
        let store = try LeakStore(path: configuration.database)
        let token = try store.createProject("gate").secret
        let server = LeakServer(configuration: configuration, store: store)
        let port = try server.start()
        defer { server.stop(grace: .seconds(2)) }
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": folder.path,
            "LEAKHISTORY_SERVER": "http://127.0.0.1:\(port)", "LEAKHISTORY_TOKEN": token, "LEAKHISTORY_PROJECT": "gate",
        ]
        let keyIndex = Dictionary(history.keys.enumerated().map { ($0.element.leakKey, $0.offset) }, uniquingKeysWith: { a, _ in a })
        // LEAKHISTORY_BENCH_VERBOSE=1: one line on stderr for each miss and false failure.
        let verbose = ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_VERBOSE"] == "1"
        let label = "\(history.shape.name), \(attempts == 1 ? "no attempts" : "\(attempts) attempts")"
        let recording = try recordingFile()
        defer { try? recording?.close() }

        var scorer = GateScorer()
        var setAside: [String: Int] = [:]
        var suspect = (right: 0, of: 0)
        var seen = [Seen](repeating: Seen(), count: history.shape.environments)
        var checks = 0, runs = 0
        let totalRuns = history.builds.reduce(0) { $0 + $1.runs.reduce(0) { $0 + $1.count } }
        let clock = ContinuousClock()
        let start = clock.now
        for (buildIndex, build) in history.builds.enumerated() {
            let commit = build.commit
            let kind = build.isPullRequest ? "pull request" : "main"
            for (environmentIndex, environmentRuns) in build.runs.enumerated() {
                for (runIndex, run) in environmentRuns.enumerated() {
                    let report = folder.appendingPathComponent("report.ndjson").path
                    try? FileManager.default.removeItem(atPath: report)
                    let writer = try NDJSONWriter(path: report)
                    let records = run.checks(history.keys, attempts: attempts)
                    for record in records { try writer.append(record) }
                    checks += records.count
                    runs += 1
                    let arguments = [binary, "check", report, "--base", sha[build.mainTip]!, "--commit", sha[commit]!,
                                     "--branch", history.commits[commit].branch, "--environment", "env-\(environmentIndex)",
                                     "--run-key", "build-\(buildIndex)-\(environmentIndex)-\(runIndex)", "--format", "json"]
                    _ = GateRecorder.shared.take()
                    let (status, output) = try GateBenchmark.execute(arguments, in: repository, environment: environment)
                    let judgements = GateRecorder.shared.take()
                    guard [0, 1, 3].contains(status), let verdict = try? JSONDecoder().decode(Verdict.self, from: Data(output.utf8)) else {
                        throw BenchError("leakhistory check exited \(status) for build \(buildIndex) (\(label)): \(output)")
                    }
                    if runs % 500 == 0 {
                        FileHandle.standardError.write(Data("[\(label)] \(runs) of \(totalRuns) runs judged\n".utf8))
                    }

                    var state = seen[environmentIndex]
                    state.runs[commit, default: []].append(run)
                    defer {
                        if run.shape != .brokenHarness {
                            state.usable.insert(commit)
                            state.checked[commit, default: []].formUnion(run.checkedKeys)
                            state.leaked[commit, default: []].formUnion(run.leakedKeys)
                        }
                        seen[environmentIndex] = state
                    }
                    if state.runs[commit]!.contains(where: { $0.shape == .brokenHarness }) {
                        suspect.of += 1
                        if status == 1 { suspect.right += 1 }
                        setAside["broken-harness or 1–3-check head run", default: 0] += 1
                        continue
                    }
                    if run.shape == .filtered {
                        setAside["broken-harness or 1–3-check head run", default: 0] += 1
                        continue
                    }
                    let reference = build.isPullRequest ? build.mergeBase
                        : ancestors(of: commit, limit: 100).first { state.usable.contains($0) }
                    guard let reference, verdict.result != "noBase" else {
                        setAside["no base", default: 0] += 1
                        continue
                    }

                    // The truth at the moment the build ran.
                    let headChecked = state.runs[commit]!.filter { $0.shape != .brokenHarness }
                        .reduce(into: Set<Int>()) { $0.formUnion($1.checkedKeys) }
                    let code = history.commits[commit].leaks, referenceCode = history.commits[reference].leaks
                    let broughtIn = code.subtracting(referenceCode)
                    let truth = broughtIn.intersection(headChecked)
                    setAside["new leaks the head did not check", default: 0] += broughtIn.count - truth.count
                    let unseenAtBase = code.intersection(referenceCode).intersection(headChecked)
                        .filter { state.checked[reference]?.contains($0) != true }
                    var category: [Int: Verdict.Entry] = [:]
                    for entry in verdict.entries {
                        if let key = keyIndex[LeakKey(scenario: entry.scenario, type: entry.type)] { category[key] = entry }
                    }
                    let calledNew = Set(category.filter { $0.value.category == "new" }.keys)
                    var judged: [Int: GateRunRecord.JudgedKey] = [:]
                    for judgement in judgements {
                        guard let key = keyIndex[judgement.key] else { continue }
                        judged[key] = .init(key: key, category: category[key]?.category ?? "not listed",
                                            summary: category[key]?.evidence?.summary ?? "", judgement.evidence)
                    }
                    // What a false failure needs to know: of the keys called new, or, for a recording
                    // that a changed rule may score, of every judged key (each walks 1,000 ancestors).
                    let candidates = (recording == nil ? calledNew : calledNew.union(judged.keys)).subtracting(truth)
                    let record = GateRunRecord(
                        kind: kind, place: "build \(buildIndex) \(kind) commit \(commit) vs \(reference)",
                        truth: truth.sorted(), unseenAtBase: unseenAtBase.sorted(),
                        newUnjudged: calledNew.subtracting(judged.keys).sorted(), judged: judged.values.sorted { $0.key < $1.key },
                        situations: Dictionary(uniqueKeysWithValues: truth.map { ($0, situation(of: $0, at: commit, state)) }),
                        truthCategories: Dictionary(uniqueKeysWithValues: truth.map { ($0, category[$0]?.category ?? "not listed") }),
                        wrong: Dictionary(uniqueKeysWithValues: candidates.map { key in
                            let first = firstSighting(key, at: commit, state)
                            let what = history.keys[key].intermittence == nil ? "not intermittent" : first ? "first sighting" : "intermittent, leaked before"
                            return (key, GateRunRecord.WrongKey(
                                what: what, rate: history.intermittentRate(key, at: history.commits[commit].mainPosition) ?? 0,
                                firstSighting: first))
                        }))
                    if let recording { try recording.write(contentsOf: JSONEncoder().encode(record) + Data("\n".utf8)) }
                    let notes = scorer.add(record, calledNew: calledNew, summaries: category.compactMapValues { $0.evidence?.summary })
                    if verbose, !notes.isEmpty {
                        FileHandle.standardError.write(Data("[\(label)] \(record.place): \(notes.joined(separator: "; "))\n".utf8))
                    }
                }
            }
        }
        let elapsed = (clock.now - start).nanoseconds
        let serverTime = try GateBenchmark.serverSeconds(port: port)
        setAside["leaks in the base's code its run did not check (called new)"] = scorer.calledNewUnseenAtBase
        return outcome(scorer: scorer, setAside: setAside, suspect: suspect, checks: checks, runs: runs,
                       elapsed: elapsed, serverTime: serverTime)
    }

    /// `LEAKHISTORY_BENCH_GATE_RECORD=FILE`: the pass's scored runs written there, one JSON line
    /// each (`GateRunRecord`), for `LEAKHISTORY_BENCH_GATE_REPLAY`. One pass a process records.
    private func recordingFile() throws -> FileHandle? {
        guard let path = ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_GATE_RECORD"] else { return nil }
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw BenchError("cannot write the gate recording at \(path) (LEAKHISTORY_BENCH_GATE_RECORD): check the folder exists and is writable")
        }
        GateRecorder.shared.start()
        return file
    }

    /// A missed key's situation when the build ran.
    struct Situation: Codable {
        var name: String
        /// Intermittent then at a rate three attempts (or one) cannot tell from a real leak.
        var undecidable: Bool
        /// Recent history clean, or intermittent at a low rate: never to be passed.
        var clear: Bool
    }

    func situation(of key: Int, at commit: Int, _ state: Seen) -> Situation {
        if let rate = history.intermittentRate(key, at: history.commits[commit].mainPosition) {
            let undecidable = pow(rate, Double(attempts)) >= GateBenchmark.undecidableChance
            let low = rate < GateBenchmark.lowRate
            return Situation(name: "key intermittent then at \(low ? "< " : "≥ ")\(Int(GateBenchmark.lowRate * 100))%",
                             undecidable: undecidable, clear: low && attempts > 1)
        }
        let leakedRecently = ancestors(of: commit, limit: GateBenchmark.recentCommits).contains { state.leaked[$0]?.contains(key) == true }
        return leakedRecently
            ? Situation(name: "key leaked in its recent history, not intermittent then", undecidable: false, clear: false)
            : Situation(name: "key's recent history clean", undecidable: false, clear: true)
    }

    /// An intermittent key that had not leaked in the `firstSightingCommits` commits before.
    func firstSighting(_ key: Int, at commit: Int, _ state: Seen) -> Bool {
        history.keys[key].intermittence != nil
            && !ancestors(of: commit, limit: GateBenchmark.firstSightingCommits).contains { state.leaked[$0]?.contains(key) == true }
    }

    /// Up to `limit` first-parent ancestors of `commit`, nearest first.
    func ancestors(of commit: Int, limit: Int) -> [Int] {
        var line: [Int] = []
        var current = history.commits[commit].parents.first
        while let at = current, line.count < limit {
            line.append(at)
            current = history.commits[at].parents.first
        }
        return line
    }

    private func outcome(scorer: GateScorer, setAside: [String: Int], suspect: (right: Int, of: Int), checks: Int, runs: Int,
                         elapsed: Double, serverTime: [String: Double]) -> Outcome {
        let scores = scorer.scores, missed = scorer.missed, missedClearly = scorer.missedClearly
        let falseFailureKeys = scorer.falseFailureKeys
        let shape = history.shape
        let withAttempts = attempts > 1
        var table = BenchmarkTable(title: """
            gate, \(shape.name) (seed \(shape.seed)), \(withAttempts ? "reports with \(attempts) attempts" : "reports without attempts") — \
            \(history.commits.count) commits (\(shape.mainCommits) first-parent, \(history.pullRequests) merges), \
            \(shape.environments) environment\(shape.environments == 1 ? "" : "s"), \(runs) leakhistory check runs, \(checks) checks; \
            every verdict from the real CLI (\(formatNanoseconds(elapsed / Double(max(runs, 1)))) a check)
            """)
        let perCheck = { (seconds: Double) in formatNanoseconds(seconds * 1e9 / Double(max(runs, 1))) }
        table.rows.append(.init(
            figure: "a check's time in the server (upload / resolve / diff)",
            value: "\(perCheck(serverTime.values.reduce(0, +))) (\(serverTime.sorted { $0.key < $1.key }.map { "\($0.key) \(perCheck($0.value))" }.joined(separator: ", ")))",
            baseline: "", ratio: "", target: "", met: nil))
        let issue = GateBenchmark.issueTable[shape.name]
        for kind in ["main", "pull request"] {
            let score = scores[kind]!
            let falseFailures = Double(score.falseFailures) * 100 / Double(max(score.clean, 1))
            let passed = Double(score.passedWithNew) * 100 / Double(max(score.withNew, 1))
            let issueFalse = kind == "main" ? issue?.mainFalse : issue?.prFalse
            let issuePassed = kind == "main" ? issue?.mainPassed : issue?.prPassed
            table.rows.append(.init(figure: "\(kind): builds judged", value: "\(score.judged)", baseline: "", ratio: "", target: "", met: nil))
            table.rows.append(.init(
                figure: "\(kind): false failures", value: "\(score.falseFailures) of \(score.clean) (\(GateBenchmark.percent(score.falseFailures, score.clean)))",
                baseline: "", ratio: "",
                target: withAttempts ? "≤ 1%" : issueFalse.map { "≤ \($0)% (the issue's table)" } ?? "",
                met: withAttempts ? falseFailures <= 1 : issueFalse.map { falseFailures <= $0 }))
            table.rows.append(.init(figure: "  decidable from the data", value: "\(score.falseFailures - score.falseFailuresFirstSighting)",
                                    baseline: "", ratio: "", target: "", met: nil))
            table.rows.append(.init(figure: "  first sighting", value: "\(score.falseFailuresFirstSighting)", baseline: "", ratio: "", target: "", met: nil))
            table.rows.append(.init(
                figure: "\(kind): new leaks passed", value: "\(score.passedWithNew) of \(score.withNew) (\(GateBenchmark.percent(score.passedWithNew, score.withNew)))",
                baseline: "", ratio: "",
                target: withAttempts ? "≤ 2.5%" : issuePassed.map { "≤ \($0)% (the issue's table)" } ?? "",
                met: withAttempts ? passed <= 2.5 : issuePassed.map { passed <= $0 }))
            table.rows.append(.init(figure: "  decidable from the data", value: "\(score.passedWithNew - score.passedUndecidable)",
                                    baseline: "", ratio: "", target: "", met: nil))
            table.rows.append(.init(figure: "  key intermittent then at a rate the attempts cannot tell", value: "\(score.passedUndecidable)",
                                    baseline: "", ratio: "", target: "", met: nil))
        }
        table.rows.append(.init(figure: "new leaks passed on a key clean or intermittent < \(Int(GateBenchmark.lowRate * 100))%",
                                value: "\(missedClearly)", baseline: "", ratio: "", target: withAttempts ? "0" : "",
                                met: withAttempts ? missedClearly == 0 : nil))
        for (what, count) in missed.sorted(by: { $0.key < $1.key }) {
            table.rows.append(.init(figure: "  passed: \(what)", value: "\(count)", baseline: "", ratio: "", target: "", met: nil))
        }
        for (what, count) in falseFailureKeys.sorted(by: { $0.key < $1.key }) {
            table.rows.append(.init(figure: "  keys wrongly new: \(what)", value: "\(count)", baseline: "", ratio: "", target: "", met: nil))
        }
        for (what, count) in setAside.sorted(by: { $0.key < $1.key }) {
            table.rows.append(.init(figure: "set aside: \(what)", value: "\(count)", baseline: "", ratio: "", target: "", met: nil))
        }
        table.rows.append(.init(figure: "suspect head run: failed with its message", value: "\(suspect.right) of \(suspect.of)",
                                baseline: "", ratio: "", target: "all", met: suspect.right == suspect.of))
        let main = scores["main"]!, pullRequest = scores["pull request"]!
        func cell(_ part: Int, _ whole: Int) -> String { "\(part) of \(whole) (\(GateBenchmark.percent(part, whole)))" }
        let line = "| \(shape.name), \(shape.mainCommits) first-parent commits, \(history.pullRequests) merges, \(checks) checks | "
            + "\(withAttempts ? "\(attempts)" : "none") | \(cell(main.falseFailures, main.clean)) | \(cell(main.passedWithNew, main.withNew)) | "
            + "\(cell(pullRequest.falseFailures, pullRequest.clean)) | \(cell(pullRequest.passedWithNew, pullRequest.withNew)) |"
        return Outcome(table: table, summaryLine: line)
    }
}
