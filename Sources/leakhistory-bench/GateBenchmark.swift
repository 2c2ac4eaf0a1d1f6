import Foundation
import LeakReport
import LeakServer
import LeakStore

/// `leakhistory-bench gate`: every build of a `SyntheticHistory` judged by the real
/// `leakhistory check` binary (upload, base resolution from git, the server's diff), against a
/// real server in this process, and the verdicts scored against the history's ground truth.
///
/// Ground truth: a pull-request build brings in the stable leaks its code has and its
/// merge-base's code has not; a main build those its code has and the code of the nearest
/// first-parent ancestor whose runs checked the key has not (a build on main answers for the
/// commits since each test last ran there). Only keys the head's runs checked count. Intermittent keys are
/// never new: failing on one is a false failure, allowed only on the first leak of a key that
/// never leaked before.
enum GateBenchmark {
    static func run(quick: Bool) throws -> BenchmarkTable {
        var options = quick ? SyntheticHistory.Options.quick : .full
        if let commits = ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_GATE_COMMITS"].flatMap(Int.init) {
            options.mainCommits = commits
        }
        let history = SyntheticHistory(options: options)
        // LEAKHISTORY_BENCH_VERBOSE=1: one line on stderr for each miss and false failure.
        let verbose = ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_VERBOSE"] == "1"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-gate-\(UUID().uuidString)")
        let repository = folder.appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let marks = folder.appendingPathComponent("marks").path
        try CLIBenchmark.shell(["git", "init", "-q", "-b", "main"], in: repository)
        try CLIBenchmark.shell(["git", "fast-import", "--quiet", "--export-marks=\(marks)"], in: repository,
                               input: history.fastImportStream())
        var sha: [Int: String] = [:]
        for line in try String(contentsOfFile: marks, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let mark = Int(parts[0].dropFirst()) { sha[mark - 1] = String(parts[1]) }
        }

        var configuration = ServerConfiguration()
        configuration.logRequests = false
        configuration.port = 0
        configuration.database = folder.appendingPathComponent("gate.sqlite").path
        let store = try LeakStore(path: configuration.database)
        let token = try store.createProject("gate").secret
        let server = LeakServer(configuration: configuration, store: store)
        let port = try server.start()
        defer { server.stop(grace: .seconds(2)) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("leakhistory").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no leakhistory binary beside this one at \(binary); build it first: swift build -c release --product leakhistory")
        }
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": folder.path,
            "LEAKHISTORY_SERVER": "http://127.0.0.1:\(port)", "LEAKHISTORY_TOKEN": token, "LEAKHISTORY_PROJECT": "gate",
        ]

        var score = Score()
        var usable: Set<Int> = []                   // commits with a non-suspect upload so far
        var checkedAt: [Int: Set<Int>] = [:]        // keys checked (not errored) by any run at a commit
        var checkedUsable: [Int: Set<Int>] = [:]    // … by its non-suspect runs
        var leakedUsable: [Int: Set<Int>] = [:]     // keys its non-suspect runs saw leak
        var suspectAt: Set<Int> = []
        var everLeaked: Set<Int> = []
        var everLeakedOnMain: Set<Int> = []
        var leakedAt: [Int: [Int]] = [:]            // commits whose usable runs leaked each key, in build order
        let clock = ContinuousClock()
        let start = clock.now
        for (buildIndex, build) in history.builds.enumerated() {
            for (runIndex, run) in build.runs.enumerated() {
                let report = folder.appendingPathComponent("report.ndjson").path
                try? FileManager.default.removeItem(atPath: report)
                let writer = try NDJSONWriter(path: report)
                for check in run.checks(history.keys) { try writer.append(check) }
                let commit = history.commits[build.commit]
                let arguments = [binary, "check", report, "--base", sha[build.mainTip]!, "--commit", sha[build.commit]!,
                                 "--branch", commit.branch, "--run-key", "build-\(buildIndex)-\(runIndex)", "--format", "json"]
                let (status, output) = try execute(arguments, in: repository, environment: environment)
                guard [0, 1, 3].contains(status),
                      let document = try? JSONDecoder().decode(Verdict.self, from: Data(output.utf8)) else {
                    throw BenchError("leakhistory check exited \(status) for build \(buildIndex): \(output)")
                }

                // The ground truth at the moment the build ran.
                if run.shape == .brokenHarness { suspectAt.insert(build.commit) }
                checkedAt[build.commit, default: []].formUnion(run.outcomes.filter { $0.value != .error }.map(\.key))
                let reference = build.isPullRequest ? build.mergeBase : nearestUsableAncestor(of: build.commit, history, usable)
                // A pull request answers for what it changed since its merge-base; a build on main
                // for the commits since each key was last checked on main.
                func broughtIn(_ key: Int) -> Bool {
                    guard let reference else { return false }
                    guard !build.isPullRequest else { return !history.commits[reference].stableLeaks.contains(key) }
                    let lastChecked = nearestAncestor(of: build.commit, history) { checkedUsable[$0]?.contains(key) == true } ?? reference
                    return !history.commits[lastChecked].stableLeaks.contains(key)
                }
                score.builds[build.isPullRequest ? "pull request" : "main", default: 0] += 1
                if suspectAt.contains(build.commit) {
                    score.byRule("suspect run at head: failed with its message", right: status == 1)
                } else if let reference {
                    let truth = commit.stableLeaks.intersection(checkedAt[build.commit] ?? []).filter(broughtIn)
                    let notes = score.judge(document, truth: truth, history: history, everLeaked: everLeaked,
                                            everLeakedOnMain: everLeakedOnMain, status: status)
                    if verbose, !notes.isEmpty {
                        let kind = build.isPullRequest ? "pr from \(reference)" : "main vs \(reference)"
                        var text = "build \(buildIndex).\(runIndex) commit \(build.commit) (\(kind), tip \(build.mainTip)): \(notes.joined(separator: "; "))\n"
                        for key in Set(notes.compactMap { note in note.split(separator: "#").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) } }) {
                            // The key along the head's first parents, newest first: code state / what usable runs saw.
                            var line: [String] = [], current: Int? = build.commit
                            while let at = current, line.count < 40 {
                                let code = history.commits[at].stableLeaks.contains(key) ? "L" : "c"
                                let seen = leakedUsable[at]?.contains(key) == true ? "L" : checkedUsable[at]?.contains(key) == true ? "c" : "-"
                                line.append("\(at):\(code)\(seen)")
                                current = history.commits[at].parents.first
                            }
                            text += "  key #\(key): \(line.joined(separator: " "))\n"
                            let earlier = (leakedAt[key] ?? []).suffix(12).map { "\($0)(\(history.commits[$0].branch))" }
                            text += "    leaked before at: \(earlier.isEmpty ? "none" : earlier.joined(separator: " "))\n"
                        }
                        FileHandle.standardError.write(Data(text.utf8))
                    }
                } else {
                    score.byRule("no base: passed, leaks listed as unverified", right: status == 0 && document.result == "noBase")
                }
                if run.shape != .brokenHarness {
                    usable.insert(build.commit)
                    let leaked = run.outcomes.filter { $0.value == .leaked }.map(\.key)
                    everLeaked.formUnion(leaked)
                    if !build.isPullRequest { everLeakedOnMain.formUnion(leaked) }
                    for key in leaked where leakedAt[key]?.last != build.commit { leakedAt[key, default: []].append(build.commit) }
                    checkedUsable[build.commit, default: []].formUnion(run.outcomes.filter { $0.value != .error }.map(\.key))
                    leakedUsable[build.commit, default: []].formUnion(leaked)
                }
            }
        }
        let elapsed = (clock.now - start).nanoseconds
        let serverTime = try serverSeconds(port: port)

        let judged = score.judgedBuilds
        var table = BenchmarkTable(title: """
            gate — \(history.commits.count) commits (\(history.options.mainCommits) on main), \(history.builds.count) builds, \
            \(score.totalChecks) leakhistory check runs of \(history.options.keys) checks; \
            every verdict from the real CLI (\(formatNanoseconds(elapsed / Double(max(score.totalChecks, 1)))) a check)
            """)
        // Where a check's time goes: the server's answers (upload, resolve, diff), the rest is the
        // CLI process, its git calls and the HTTP round trips.
        let perCheck = { (seconds: Double) in formatNanoseconds(seconds * 1e9 / Double(max(score.totalChecks, 1))) }
        let serverTotal = serverTime.values.reduce(0, +)
        table.rows.append(.init(
            figure: "a check's time in the server (upload / resolve / diff)",
            value: "\(perCheck(serverTotal)) (\(serverTime.sorted { $0.key < $1.key }.map { "\($0.key) \(perCheck($0.value))" }.joined(separator: ", ")))",
            baseline: "", ratio: "", target: "", met: nil))
        table.rows.append(.init(figure: "builds judged (pull request / main)",
                                value: "\(score.builds["pull request"] ?? 0) / \(score.builds["main"] ?? 0)",
                                baseline: "", ratio: "", target: "", met: nil))
        table.rows.append(.init(figure: "stable new leaks missed", value: "\(score.missed.values.reduce(0, +)) of \(score.trueNew)",
                                baseline: "", ratio: "", target: "0", met: score.missed.isEmpty))
        for (cause, count) in score.missed.sorted(by: { $0.key < $1.key }) {
            table.rows.append(.init(figure: "  missed: landed as \(cause)", value: "\(count)", baseline: "", ratio: "", target: "", met: nil))
        }
        let falseFailures = score.falseFailures.values.reduce(0, +)
        let notAllowed = score.falseFailures.filter { $0.key != Score.firstOccurrence }.values.reduce(0, +)
        table.rows.append(.init(
            figure: "false failures", value: "\(falseFailures) of \(judged) builds (\(percent(falseFailures, judged)))",
            baseline: "", ratio: "", target: "< 1%, first occurrences only",
            met: notAllowed == 0 && Double(falseFailures) < Double(judged) * 0.01))
        for (cause, count) in score.falseFailures.sorted(by: { $0.key < $1.key }) {
            table.rows.append(.init(figure: "  false failure: \(cause)", value: "\(count)", baseline: "", ratio: "", target: "", met: nil))
        }
        table.rows.append(.init(figure: "builds that brought in a leak and failed", value: "\(score.caught) of \(score.shouldFail)",
                                baseline: "", ratio: "", target: "all", met: score.caught == score.shouldFail))
        for (what, counts) in score.byDesign.sorted(by: { $0.key < $1.key }) {
            table.rows.append(.init(figure: what, value: "\(counts.right) of \(counts.right + counts.wrong)",
                                    baseline: "", ratio: "", target: "all", met: counts.wrong == 0))
        }
        return table
    }

    /// The seconds the server spent answering each API route so far, from its `/metrics`.
    static func serverSeconds(port: Int) throws -> [String: Double] {
        let text = String(decoding: try BenchHTTPClient(port: port).body200("GET", "/metrics"), as: UTF8.self)
        var seconds: [String: Double] = [:]
        let prefix = "leakhistory_http_request_duration_seconds_sum{route=\""
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            guard let quote = rest.firstIndex(of: "\""), let value = rest.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            let route = String(rest[..<quote])
            // The API's routes by their last part: /v1/projects/{project}/runs → runs.
            guard route.hasPrefix("/v1/"), let name = route.split(separator: "/").last else { continue }
            seconds[String(name), default: 0] += value
        }
        return seconds
    }

    /// The part of `check --format json` the score reads.
    struct Verdict: Decodable {
        struct Entry: Decodable {
            var category: String
            var scenario: String
            var type: String
        }
        var result: String
        var exitCode: Int
        var entries: [Entry]
    }

    struct Score {
        static let firstOccurrence = "first occurrence of a key that never leaked before"
        var builds: [String: Int] = [:]
        var totalChecks = 0
        var trueNew = 0
        var shouldFail = 0
        var caught = 0
        /// Missed stable new leaks, by the category they landed in.
        var missed: [String: Int] = [:]
        /// Builds that failed without bringing in a leak, by cause.
        var falseFailures: [String: Int] = [:]
        /// Builds whose result is set by a rule (no base, suspect head): right or wrong.
        var byDesign: [String: (right: Int, wrong: Int)] = [:]

        var judgedBuilds: Int { builds.values.reduce(0, +) }

        mutating func byRule(_ what: String, right: Bool) {
            totalChecks += 1
            var counts = byDesign[what] ?? (0, 0)
            if right { counts.right += 1 } else { counts.wrong += 1 }
            byDesign[what] = counts
        }

        /// Scores one verdict; returns a note for each miss and false failure.
        mutating func judge(_ verdict: Verdict, truth: Set<Int>, history: SyntheticHistory, everLeaked: Set<Int>,
                            everLeakedOnMain: Set<Int>, status: Int32) -> [String] {
            totalChecks += 1
            let index = Dictionary(history.keys.enumerated().map { ($0.element.leakKey, $0.offset) }, uniquingKeysWith: { a, _ in a })
            var category: [Int: String] = [:]
            for entry in verdict.entries {
                if let key = index[LeakKey(scenario: entry.scenario, type: entry.type)] { category[key] = entry.category }
            }
            trueNew += truth.count
            var notes: [String] = []
            for key in truth where category[key] != "new" {
                missed[category[key] ?? "not listed", default: 0] += 1
                notes.append("missed key #\(key) as \(category[key] ?? "not listed")")
            }
            if !truth.isEmpty {
                shouldFail += 1
                if status == 1 { caught += 1 }
                return notes
            }
            guard status == 1 else { return notes }
            let wronglyNew = category.filter { $0.value == "new" }.map(\.key)
            let causes = wronglyNew.map { key -> String in
                if !everLeaked.contains(key) { return Self.firstOccurrence }
                switch history.keys[key].kind {
                case .intermittent where !everLeakedOnMain.contains(key):
                    return "intermittent key that had leaked before only on other branches"
                case .intermittent: return "intermittent key that had leaked before on main"
                case .stable: return "stable leak the change did not bring in"
                }
            }
            // The worst cause names the build: anything but a first occurrence is a real error.
            let cause = causes.first { $0 != Self.firstOccurrence } ?? causes.first ?? "failed with no new leak listed"
            falseFailures[cause, default: 0] += 1
            return notes + wronglyNew.sorted().map { "false failure on key #\($0): \(cause)" }
        }
    }

    /// The nearest first-parent ancestor of `commit` with a usable upload, if any.
    static func nearestUsableAncestor(of commit: Int, _ history: SyntheticHistory, _ usable: Set<Int>) -> Int? {
        nearestAncestor(of: commit, history) { usable.contains($0) }
    }

    /// The nearest first-parent ancestor of `commit` (itself excluded) that `matches`.
    static func nearestAncestor(of commit: Int, _ history: SyntheticHistory, _ matches: (Int) -> Bool) -> Int? {
        var current = history.commits[commit].parents.first
        while let candidate = current {
            if matches(candidate) { return candidate }
            current = history.commits[candidate].parents.first
        }
        return nil
    }

    static func percent(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "0%" : "\(round2(Double(part) * 100 / Double(whole)))%"
    }

    /// Runs a process with exactly `environment`; its exit status and standard output (and, on a
    /// usage error, its standard error).
    static func execute(_ arguments: [String], in directory: URL, environment: [String: String]) throws -> (Int32, String) {
        let result = try ChildProcess.run(arguments[0], Array(arguments.dropFirst()), in: directory, environment: environment)
        return (result.status, result.status == 2 ? result.stdout + result.stderr : result.stdout)
    }
}
