import Foundation
import LeakReport

/// `leakhistory diff main..HEAD`, or `--local BASE.ndjson HEAD.ndjson`.
struct DiffCommand: Command {
    static let comparisonOptions: [CommandSpec.Option] = [
        .init(name: "--depth", valueName: "n", help: "How many first-parent ancestors of the merge-base may stand in when it has no upload (default: 100)."),
        .init(name: "--if-no-base", valueName: "action", help: "What no base at all means (default: warn).", choices: ["pass", "warn", "fail"]),
        .init(name: "--strict", valueName: nil, help: "Fail on flaky leaks too."),
        .init(name: "--dashboard-url", valueName: "url", help: "Where people open the dashboard, for the link the outputs print (LEAKHISTORY_DASHBOARD_URL; default: the server)."),
        OutputFormat.option,
    ]

    static let spec = CommandSpec(
        name: "diff",
        abstract: "Show the leaks a change brings in, fixes and keeps.",
        discussion: """
            Resolves both sides with git, takes their merge-base, and compares the head with the
            nearest first-parent ancestor of the merge-base that has an upload for the environment;
            it prints which base it used and how far back it is. Exit codes: 0 no new leaks, 1 new
            leaks (or flaky with --strict), 2 usage or configuration error, 3 server unreachable or
            no base with --if-no-base fail.
            """,
        arguments: [
            .init(name: "range", help: "BASE..HEAD or BASE...HEAD (branches, tags, SHAs); BASE alone means BASE..HEAD. With --local: two report files.", isRepeated: true),
        ],
        options: ClientSettings.options + [
            .init(name: "--base", valueName: "rev", help: "The base revision, instead of a range."),
            .init(name: "--head", valueName: "rev", help: "The head revision (default: HEAD)."),
            .init(name: "--local", valueName: nil, help: "Compare two report files (BASE.ndjson HEAD.ndjson); no server needed."),
        ] + comparisonOptions,
        examples: [
            "leakhistory diff main..HEAD",
            "leakhistory diff origin/main...HEAD --format github --if-no-base fail",
            "leakhistory diff --base v1.2.0 --head HEAD --environment linux-swift6.3",
            "leakhistory diff --local base.ndjson head.ndjson --format markdown",
            "leakhistory diff main..HEAD --format sarif > leaks.sarif",
        ])

    var arguments: ParsedArguments
    var context: CommandContext
    var format: OutputFormat
    var depth: Int

    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) {
        self.arguments = arguments
        self.context = context
        self.format = OutputFormat(arguments)
        self.depth = try Self.depth(arguments)
        if arguments.has("--local") {
            guard arguments.positionals.count == 2 else {
                throw UsageError("--local takes two report files: BASE.ndjson HEAD.ndjson", command: Self.spec)
            }
        } else if arguments.positionals.count > 1 {
            throw UsageError("Expected one revision range, got \(arguments.positionals.count): \(arguments.positionals.joined(separator: " "))", command: Self.spec)
        } else if arguments.positionals.isEmpty && arguments.value("--base") == nil {
            throw UsageError("Missing the revision range; e.g. leakhistory diff main..HEAD", command: Self.spec)
        }
    }

    static func depth(_ arguments: ParsedArguments) throws(UsageError) -> Int {
        guard let text = arguments.value("--depth") else { return 100 }
        guard let depth = Int(text), (1...1000).contains(depth) else {
            throw UsageError("'\(text)' is not a valid value for '--depth <n>'; use a number from 1 to 1000", command: spec)
        }
        return depth
    }

    func run() async throws(CommandFailure) -> ExitCode {
        let outcome = arguments.has("--local") ? try localOutcome() : try await serverOutcome()
        try DiffPrinter(format: format, context: context).print(outcome)
        return outcome.exitCode
    }

    private func localOutcome() throws(CommandFailure) -> DiffOutcome {
        let basePath = arguments.positionals[0], headPath = arguments.positionals[1]
        let base = try ReportFiles.checks(in: [basePath]), head = try ReportFiles.checks(in: [headPath])
        return DiffOutcome(
            environment: arguments.value("--environment") ?? "local",
            base: nil, head: headPath,
            diff: LeakDiff(base: KeyObservation.fold(base), head: KeyObservation.fold(head)),
            strict: arguments.has("--strict"), ifNoBase: arguments.value("--if-no-base") ?? "warn",
            baseLabel: basePath, headLabel: headPath,
            repositoryRoot: (try? GitRepository.containing(context.workingDirectory))?.directory)
    }

    private func serverOutcome() async throws(CommandFailure) -> DiffOutcome {
        let repository = try GitRepository.containing(context.workingDirectory)
        let settings = try await ClientSettings.resolve(arguments, environment: context.environment, repositoryRoot: repository.directory)
        let range = try arguments.positionals.first.map { text throws(CommandFailure) in try RevisionRange(parsing: text) }
            ?? RevisionRange(base: arguments.value("--base")!, head: "HEAD")
        let head = try repository.commit(arguments.value("--head") ?? range.head)
        let flow = DiffFlow(
            client: LeakHistoryClient(settings: settings), repository: repository, depth: depth,
            strict: arguments.has("--strict"), ifNoBase: arguments.value("--if-no-base") ?? "warn")
        return try await flow.compare(baseRevision: arguments.value("--base") ?? range.base, headCommit: head)
    }
}

/// Prints a diff in the chosen format; for `github`, also appends the markdown summary to
/// `$GITHUB_STEP_SUMMARY` when it is set.
struct DiffPrinter {
    var format: OutputFormat
    var context: CommandContext

    func print(_ outcome: DiffOutcome) throws(CommandFailure) {
        let palette = format == .text ? Palette.forStandardOutput(environment: context.environment) : Palette(enabled: false)
        let renderer = DiffRenderer(palette: palette)
        context.print(renderer.render(outcome, as: format))
        if format == .github, let summaryPath = context.environment["GITHUB_STEP_SUMMARY"], !summaryPath.isEmpty {
            guard let handle = FileHandle(forWritingAtPath: summaryPath) ?? createFile(summaryPath) else {
                throw CommandFailure("Cannot write the step summary to \(summaryPath) (GITHUB_STEP_SUMMARY).", code: .usage)
            }
            handle.seekToEndOfFile()
            handle.write(Data(renderer.markdown(outcome).utf8))
            handle.closeFile()
        }
    }

    private func createFile(_ path: String) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }
}
