import Foundation
import LeakReport
import LeakServer
import LeakStore

/// `leakhistory-bench gate`: every build of a `GateHistory` judged by the real `leakhistory
/// check` binary (upload, base resolution from git, the server's diff) against a real server in
/// this process, scored against the history's ground truth — once with reports whose leaks
/// carry 3 confirmation attempts and once with reports without attempts (two servers, the same
/// runs), for each history shape of issue 45.
///
/// Ground truth: a pull-request build brings in the real leaks its code has and its
/// merge-base's code has not; a main build those its code has and the code of its nearest
/// first-parent ancestor with a usable upload (its base) has not. Intermittent leaks are never
/// new. Set aside, as the issue does: builds whose head run is a broken harness (the server
/// fails those with their own message) or a 1–3-check filtered run; new leaks the head did not
/// check; leaks that were in the base's code when the base's run did not check them.
///
/// A false failure is a *first sighting* when every key wrongly called new is intermittent and
/// had not leaked at any of the `firstSightingCommits` commits before along the head's first
/// parents: no rule reading history can tell it. A new leak passed is *not decidable* when its
/// key was intermittent then at a rate whose own sightings leak every attempt with a chance of
/// `undecidableChance` or more: failing those would fail that many of the key's clean builds.
enum GateBenchmark {
    /// How far back a false failure's key must not have leaked to count as a first sighting.
    static let firstSightingCommits = 1_000
    /// See the type's comment. A key whose own sightings leak every attempt in this share of its
    /// builds would spend half the 1% false-failure budget of the issue alone if its real leaks
    /// were failed: a real leak on it cannot be told from its intermittence by the attempts.
    static let undecidableChance = 0.005
    /// A key is a low-rate intermittent one below this rate: the issue's "intermittent at a low
    /// rate", whose new leaks must never pass with three attempts.
    static let lowRate = 0.1
    /// The window `recent history clean` looks at: as long as the server's flaky window.
    static let recentCommits = LeakStore.flakyWindowCommits

    /// The issue's table (reports without attempts, before issue 45): false failures and new
    /// leaks passed on main and on pull requests, in percent, per history shape.
    static let issueTable: [String: (mainFalse: Double, mainPassed: Double, prFalse: Double, prPassed: Double)] = [
        GateHistory.Shape.server.name: (4.3, 6.2, 4.3, 2.6),
        GateHistory.Shape.reactive.name: (2.2, 5.1, 3.8, 1.4),
    ]

    static func run(quick: Bool) throws -> String {
        let settings = ProcessInfo.processInfo.environment
        // LEAKHISTORY_BENCH_GATE_REPLAY=FILE[,FILE…]: recordings scored by the rule as built now.
        if let paths = settings["LEAKHISTORY_BENCH_GATE_REPLAY"] {
            return try paths.split(separator: ",").map { path in
                try GateScorer.replay(String(path), verbose: settings["LEAKHISTORY_BENCH_VERBOSE"] == "1").render(title: "replay of \(path)")
            }.joined(separator: "\n")
        }
        var shapes: [GateHistory.Shape] = quick ? [.quick] : [.server, .reactive]
        // LEAKHISTORY_BENCH_GATE_SHAPES=server,reactive picks shapes by the first word of their name.
        if let names = settings["LEAKHISTORY_BENCH_GATE_SHAPES"]?.split(separator: ",").map(String.init) {
            shapes = shapes.filter { shape in names.contains { shape.name.hasPrefix($0) } }
        }
        // LEAKHISTORY_BENCH_GATE_COMMITS=N shortens (or lengthens) main; ..._ENVIRONMENTS=2 runs
        // every build in two environments (the issue's histories had two).
        for index in shapes.indices {
            if let commits = settings["LEAKHISTORY_BENCH_GATE_COMMITS"].flatMap(Int.init) { shapes[index].mainCommits = commits }
            if let count = settings["LEAKHISTORY_BENCH_GATE_ENVIRONMENTS"].flatMap(Int.init) { shapes[index].environments = count }
        }
        // LEAKHISTORY_BENCH_GATE_ATTEMPTS=3 or =1 runs one of the two passes.
        let modes = settings["LEAKHISTORY_BENCH_GATE_ATTEMPTS"].flatMap(Int.init).map { [$0] } ?? [3, 1]
        if settings["LEAKHISTORY_BENCH_GATE_RECORD"] != nil, shapes.count * modes.count != 1 {
            throw BenchError("LEAKHISTORY_BENCH_GATE_RECORD records one pass: pick one shape (LEAKHISTORY_BENCH_GATE_SHAPES) and one LEAKHISTORY_BENCH_GATE_ATTEMPTS")
        }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("leakhistory").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no leakhistory binary beside this one at \(binary); build it first: swift build -c release --product leakhistory")
        }

        var text = ""
        var summary: [String] = []
        for shape in shapes {
            let history = GateHistory(shape: shape)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-gate-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let repository = folder.appendingPathComponent("repo")
            let sha = try GitFastImport.importRepository(history.fastImportStream(), into: repository)
            // The two passes at once: each its own server and database, the same repository.
            let results = Locked<[Int: Result<GatePass.Outcome, BenchError>]>([:])
            onClientThreads(modes.count) { index in
                let pass = GatePass(history: history, sha: sha, repository: repository, binary: binary,
                                    folder: folder.appendingPathComponent("pass-\(modes[index])"), attempts: modes[index])
                let result: Result<GatePass.Outcome, BenchError>
                do { result = .success(try pass.run()) } catch { result = .failure(BenchError("\(error)")) }
                results.withLock { $0[index] = result }
            }
            for index in modes.indices {
                let outcome = try results.value[index]!.get()
                text += outcome.table.render() + "\n"
                summary.append(outcome.summaryLine)
            }
        }
        text += """
            Summary (builds judged by leakhistory check; set-asides as above):
            | history | attempts | main: false failures | main: new leaks passed | PR: false failures | PR: new leaks passed |
            |---|---|---|---|---|---|

            """
        text += summary.joined(separator: "\n") + "\n"
        return text
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
