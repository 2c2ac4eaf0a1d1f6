import Foundation
import LeakReport

/// `check --confirm-with`: new leaks that no check repeated (LeakCheck could not run them again,
/// or an older tool wrote them) are tested again by a command the user gives, for just those
/// scenarios; what each re-run reports is uploaded as one more run of the same commit, and the
/// server is asked again. A leak a re-run released was intermittent (flaky); one that leaks
/// again in every re-run stays new.
struct LeakConfirmation: Sendable {
    static let options: [CommandSpec.Option] = [
        .init(name: "--confirm-with", valueName: "command",
              help: "Test new leaks that no check repeated again with this command, run by /bin/sh with {filter} (swift test --filter), {only-testing:TARGET} (xcodebuild) or {scenarios} replaced, and judge them again."),
        .init(name: "--confirm-runs", valueName: "n",
              help: "How many times --confirm-with may run, while such a leak stays new (default: \(defaultRuns))."),
    ]

    /// Two re-runs after the run that leaked: three runs in all, as LeakCheck's three attempts.
    static let defaultRuns = 2
    /// More re-runs than this is a loop of test runs, not a confirmation.
    static let maxRuns = 10

    var command: RerunCommand
    var runs: Int

    /// The confirmation the arguments ask for; nil without `--confirm-with`.
    init?(_ arguments: ParsedArguments) throws(UsageError) {
        guard let template = arguments.value("--confirm-with") else {
            if let runs = arguments.value("--confirm-runs") {
                throw UsageError("'--confirm-runs \(runs)' needs '--confirm-with <command>': the command that tests the leaks again", command: CheckCommand.spec)
            }
            return nil
        }
        command = try RerunCommand(template)
        runs = Self.defaultRuns
        if let text = arguments.value("--confirm-runs") {
            guard let count = Int(text), (1...Self.maxRuns).contains(count) else {
                throw UsageError("'\(text)' is not a valid value for '--confirm-runs <n>'; use a number from 1 to \(Self.maxRuns)", command: CheckCommand.spec)
            }
            runs = count
        }
    }

    /// The new leaks a re-run can settle: those whose head evidence holds one attempt in all (a
    /// check that could not be repeated, in a single run), or, from a server that sends no
    /// evidence, whose leaking checks in this run each ran once.
    static func ambiguous(_ entries: [LeakDiff.Entry], headChecks: [CheckRecord]) -> [LeakKey] {
        var attemptsByKey: [LeakKey: Int] = [:]
        for check in headChecks where check.outcome == .leaked || check.leakedAttemptCount > 0 {
            let key = LeakKey(scenario: check.scenario, type: check.type)
            attemptsByKey[key] = max(attemptsByKey[key] ?? 0, check.attemptCount)
        }
        return entries.filter { entry in
            entry.category == .new && (attemptsByKey[entry.key] ?? 1) <= 1
        }.map(\.key)
    }

    /// Re-runs the ambiguous new leaks of `outcome` (the head's `run` uploaded) until none is new
    /// or `runs` re-runs are done, and returns the last comparison. `compare` asks the server again.
    func confirm(
        _ outcome: DiffOutcome, run: RunRecord, client: LeakHistoryClient, context: CommandContext, gzip: Bool,
        compare: () async throws(CommandFailure) -> DiffOutcome
    ) async throws(CommandFailure) -> DiffOutcome {
        var outcome = outcome
        var targets = Self.ambiguous(outcome.diff.entries, headChecks: run.checks)
        var rerun = 0
        while !targets.isEmpty, rerun < runs {
            rerun += 1
            let scenarios = Array(Set(targets.map(\.scenario))).sorted()
            let line = command.expanded(for: scenarios)
            context.printError("Confirming \(counted(targets.count, "new leak")) that no check repeated (re-run \(rerun) of \(runs)): \(line)\n")
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("leakhistory-confirm-\(UUID().uuidString)").path
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let status = try await Self.shell(line, reportsTo: folder, context: context)
            let checks = try ReportFiles.read([folder]).checks
            guard !checks.isEmpty else {
                context.printError("The command wrote no leak report (exit status \(status)), so nothing was confirmed and the leaks stay new. Check that it runs the tests that use LeakCheck; it gets LEAKHISTORY_REPORT=\(folder)/ (TEST_RUNNER_LEAKHISTORY_REPORT for xcodebuild).\n")
                break
            }
            var again = run
            again.runKey = "\(run.runKey)-confirm-\(rerun)-\(UUID().uuidString.prefix(8).lowercased())"
            again.startedAt = checks.map(\.timestamp).min() ?? Date()
            again.checks = checks
            _ = try await client.upload(again, gzip: gzip)
            outcome = try await compare()
            let stillNew = Set(outcome.diff.entries.filter { $0.category == .new }.map(\.key))
            for key in targets where !stillNew.contains(key) {
                context.printError("  \(key.type) in \(key.scenario): no longer new after re-run \(rerun) (now \(outcome.diff.entries.first { $0.key == key }?.category.rawValue ?? "not leaking")).\n")
            }
            targets = targets.filter(stillNew.contains)
        }
        for key in targets where rerun > 0 {
            context.printError("  \(key.type) in \(key.scenario): leaked again in every re-run; it stays new.\n")
        }
        return outcome
    }

    /// Runs `line` with `/bin/sh` in the working directory, its output sent to standard error
    /// (standard output carries the result), with LeakCheck's reports sent to `folder` and its
    /// leaks recorded, not failing the re-run. Returns the exit status.
    private static func shell(_ line: String, reportsTo folder: String, context: CommandContext) async throws(CommandFailure) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", line]
        process.currentDirectoryURL = URL(fileURLWithPath: context.workingDirectory)
        var environment = context.environment
        for prefix in ["", "TEST_RUNNER_"] {
            environment[prefix + "LEAKHISTORY_REPORT"] = folder + "/"
            environment[prefix + "LEAKHISTORY_REPORT_ONLY"] = "1"
        }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        let started: Result<Int32, any Error> = await withCheckedContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: .success($0.terminationStatus)) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(returning: .failure(error))
            }
        }
        switch started {
        case let .success(status): return status
        case let .failure(error):
            throw CommandFailure("Cannot run '--confirm-with' through /bin/sh: \(error.localizedDescription)", code: .usage)
        }
    }

    private func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
