import Foundation

/// `leakhistory check [--base main]`: upload, then compare with the base — one step for CI.
struct CheckCommand: Command {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Upload this run's leak reports, then fail if they bring in new leaks.",
        discussion: """
            The one step a CI job needs after swift test: leakhistory upload, then leakhistory diff
            BASE..COMMIT for the uploaded commit. Run the tests with LEAKHISTORY_REPORT_ONLY=1 so
            that leaks are recorded (and printed as warnings) without failing swift test: check is
            then the one gate for leaks. On the base branch itself, HEAD is compared with its first
            parent. Without a base the leaks at HEAD are listed as unverified and the build passes
            (--if-no-base). A run at HEAD in which nearly every check leaked (20 checks or more)
            fails with its own message. Exit codes: 0 no new leaks, 1 new leaks (or a suspect run,
            or flaky with --strict), 2 usage or configuration error, 3 server unreachable or no
            base with --if-no-base fail.

            With --confirm-with, new leaks that no check repeated (a check LeakCheck could not run
            again, or a report without attempts) are tested again before the verdict: the command
            runs for just those scenarios, up to --confirm-runs times, each run's reports are
            uploaded as one more run of the commit, and the diff is asked again. A leak a re-run
            released is flaky; one that leaks in every re-run stays new. The command runs under
            /bin/sh with LEAKHISTORY_REPORT (and TEST_RUNNER_LEAKHISTORY_REPORT) set to a fresh
            folder and LEAKHISTORY_REPORT_ONLY=1; its output goes to standard error.
            Placeholders: {filter} (a regular expression for swift test --filter),
            {only-testing:TARGET} (-only-testing:TARGET/Suite/test() arguments for xcodebuild),
            {scenarios} (the scenario ids, one argument each).
            """,
        arguments: [.init(name: "paths", help: "Report files or folders (default: LEAKHISTORY_REPORT, else .build/leakhistory/).", isRepeated: true)],
        options: ClientSettings.options + RunAssembly.options + [
            .init(name: "--base", valueName: "rev", help: "The branch to compare with (default: the pull request's base on CI, else main)."),
        ] + DiffCommand.comparisonOptions + LeakConfirmation.options,
        examples: [
            "LEAKHISTORY_REPORT_ONLY=1 swift test && leakhistory check --base origin/main --format github",
            "leakhistory check --if-no-base fail --strict",
            "leakhistory check --format markdown > leaks.md; gh pr comment \"$PR\" --body-file leaks.md",
            "leakhistory check --confirm-with 'swift test --filter {filter}'",
            "leakhistory check --confirm-with 'xcodebuild test -scheme App -destination \"$DEST\" {only-testing:AppTests}' --confirm-runs 2",
        ])

    var arguments: ParsedArguments
    var context: CommandContext
    var depth: Int
    var confirmation: LeakConfirmation?

    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) {
        self.arguments = arguments
        self.context = context
        self.depth = try DiffCommand.depth(arguments)
        self.confirmation = try LeakConfirmation(arguments)
    }

    func run() async throws(CommandFailure) -> ExitCode {
        // One look for the checkout: the upload takes the commit's parents from it, the comparison the base.
        let checkout = try? GitRepository.containing(context.workingDirectory)
        let (receipt, run, settings) = try await UploadCommand.upload(arguments, context: context, repository: checkout)
        let format = OutputFormat(arguments)
        if format == .text || format == .github {
            context.print(UploadCommand.summary(receipt, run: run, settings: settings) + "\n")
        }
        // Not in a checkout: uploaded, and now the error that says so.
        let repository: GitRepository
        if let checkout { repository = checkout } else { repository = try GitRepository.containing(context.workingDirectory) }
        let base = arguments.value("--base") ?? defaultBase
        let flow = DiffFlow(
            client: LeakHistoryClient(settings: settings), repository: repository, depth: depth,
            strict: arguments.has("--strict"), ifNoBase: arguments.value("--if-no-base") ?? "warn")
        var outcome = try await flow.compare(baseRevision: base, headCommit: run.commit)
        if let confirmation {
            outcome = try await confirmation.confirm(
                outcome, run: run, client: flow.client, context: context, gzip: !arguments.has("--no-gzip")
            ) { () async throws(CommandFailure) -> DiffOutcome in
                try await flow.compare(baseRevision: base, headCommit: run.commit)
            }
        }
        try DiffPrinter(format: format, context: context).print(outcome)
        return outcome.exitCode
    }

    /// The pull request's base branch on CI (GitHub, GitLab), else `main`.
    private var defaultBase: String {
        for variable in ["GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "CHANGE_TARGET"] {
            if let branch = context.environment[variable], !branch.isEmpty { return branch }
        }
        return "main"
    }
}
