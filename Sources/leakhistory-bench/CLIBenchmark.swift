import Foundation
import LeakReport
import LeakServer
import LeakStore

/// `leakhistory-bench cli`: the wall time of `leakhistory diff main..HEAD` in a repository of
/// 10,000 commits against a real server, beside `git rev-parse HEAD` in the same repository.
enum CLIBenchmark {
    static func run(quick: Bool) throws -> BenchmarkTable {
        let commits = quick ? 1_000 : 10_000
        let rounds = quick ? 5 : 15
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let repository = folder.appendingPathComponent("repo")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)

        // main: `commits` commits; feature: 5 more on top of main~10. The merge-base has no
        // upload; its third first-parent ancestor has, so the base search walks back.
        try shell(["git", "init", "-q", "-b", "main"], in: repository)
        try shell(["git", "fast-import", "--quiet"], in: repository, input: fastImportStream(main: commits, branchPoint: commits - 10, feature: 5))
        try shell(["git", "checkout", "-q", "feature"], in: repository)
        let mainLine = try shell(["git", "rev-list", "--first-parent", "main"], in: repository).split(separator: "\n").map(String.init)
        let mergeBase = try shell(["git", "merge-base", "main", "feature"], in: repository)
        let head = try shell(["git", "rev-parse", "HEAD"], in: repository)
        guard let mergeBaseIndex = mainLine.firstIndex(of: mergeBase) else { throw BenchError("merge-base not on main") }
        let baseCommit = mainLine[mergeBaseIndex + 3]

        var configuration = ServerConfiguration()
        configuration.logRequests = false
        configuration.port = 0
        configuration.database = folder.appendingPathComponent("bench.sqlite").path
        let store = try LeakStore(path: configuration.database)
        let token = try store.createProject("bench").secret
        let server = LeakServer(configuration: configuration, store: store)
        let port = try server.start()
        defer { server.stop(grace: .seconds(2)) }
        let checks = (0..<200).map { index in
            CheckRecord(scenario: "Suite\(index % 20)/test\(index)()", file: "Tests/AppTests/Suite.swift", line: index,
                        type: "App.Type\(index % 50)", outcome: index % 25 == 0 ? .leaked : .deallocated, waitedMs: 1, timeoutMs: 2000)
        }
        var headChecks = checks
        headChecks[1].outcome = .leaked
        _ = try store.ingest(RunRecord(project: "bench", commit: baseCommit, branch: "main", runKey: "base", checks: checks))
        _ = try store.ingest(RunRecord(project: "bench", commit: head, branch: "feature", runKey: "head", checks: headChecks))

        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("leakhistory").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no leakhistory binary beside this one at \(binary); build it first: swift build -c release --product leakhistory")
        }
        let environment = ["LEAKHISTORY_SERVER": "http://127.0.0.1:\(port)", "LEAKHISTORY_TOKEN": token, "LEAKHISTORY_PROJECT": "bench"]
        let check = try shell([binary, "diff", "main..HEAD"], in: repository, environment: environment, allowStatus: [1])
        guard check.contains("New leaks (1)"), check.contains("3 first-parent commits before the merge-base") else {
            throw BenchError("leakhistory diff did not find the seeded leak:\n\(check)")
        }
        let diff = try timeMedian(rounds) { try shell([binary, "diff", "main..HEAD"], in: repository, environment: environment, allowStatus: [1]) }
        let revParse = try timeMedian(rounds) { try shell(["git", "rev-parse", "HEAD"], in: repository) }

        var table = BenchmarkTable(title: "cli — \(commits)-commit repository, median of \(rounds) runs of each command")
        table.rows.append(.init(
            figure: "leakhistory diff main..HEAD", value: formatNanoseconds(diff),
            baseline: "\(formatNanoseconds(revParse)) git rev-parse HEAD", ratio: "\(round1(diff / revParse))×",
            target: "< 300 ms", met: diff < 300_000_000))
        return table
    }

    /// A `git fast-import` stream: `main` commits in a line, and `feature` commits on top of the
    /// commit numbered `branchPoint`.
    static func fastImportStream(main: Int, branchPoint: Int, feature: Int) -> String {
        var stream = ""
        func commit(_ mark: Int, on branch: String, from parent: Int?, time: Int) {
            let message = "commit \(mark)\n"
            stream += "commit refs/heads/\(branch)\nmark :\(mark)\ncommitter Bench <bench@example.com> \(1_700_000_000 + time) +0000\n"
            stream += "data \(message.utf8.count)\n\(message)"
            if let parent { stream += "from :\(parent)\n" }
            stream += "M 644 inline file.txt\ndata \(String(mark).utf8.count)\n\(mark)\n\n"
        }
        for mark in 1...main { commit(mark, on: "main", from: mark > 1 ? mark - 1 : nil, time: mark) }
        for offset in 1...feature { commit(main + offset, on: "feature", from: offset == 1 ? branchPoint : main + offset - 1, time: main + offset) }
        return stream
    }

    /// Median wall time of `body`, in nanoseconds, after one warm-up.
    static func timeMedian(_ rounds: Int, _ body: () throws -> String) throws -> Double {
        _ = try body()
        let clock = ContinuousClock()
        var times: [Double] = []
        for _ in 0..<rounds {
            let start = clock.now
            _ = try body()
            times.append((clock.now - start).nanoseconds)
        }
        return times.sorted()[times.count / 2]
    }

    @discardableResult
    static func shell(_ arguments: [String], in directory: URL, input: String? = nil, environment: [String: String] = [:],
                      allowStatus: Set<Int32> = []) throws -> String {
        let result = try ChildProcess.run("/usr/bin/env", arguments, in: directory,
                                          environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                          input: input)
        guard result.status == 0 || allowStatus.contains(result.status) else {
            throw BenchError("\(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
