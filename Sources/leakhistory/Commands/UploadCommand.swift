import Foundation
import LeakReport

/// `leakhistory upload [PATHS...]`
struct UploadCommand: Command {
    static let spec = CommandSpec(
        name: "upload",
        abstract: "Upload the leak reports of a test run to the server.",
        discussion: """
            Reads the NDJSON reports LeakCheck wrote (default: LEAKHISTORY_REPORT, else
            .build/leakhistory/ and the simulators' ~/Library/Developer/LeakHistory/), of one test
            run (--run-id, LEAKHISTORY_RUN_ID, else the newest), and sends them as one run of the
            commit under test. Uploading the same run again (same run key) stores nothing twice.
            """,
        arguments: [.init(name: "paths", help: "Report files or folders of them.", isRepeated: true)],
        options: ClientSettings.options + RunAssembly.options + [
            .init(name: "--format", valueName: "format", help: "How to print the result (default: text).", choices: ["text", "json"]),
        ],
        examples: [
            "swift test && leakhistory upload --server http://leakhistory:8080 --project app",
            "leakhistory upload .build/leakhistory/ --environment linux-swift6.3",
        ])

    var arguments: ParsedArguments
    var context: CommandContext

    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) {
        self.arguments = arguments
        self.context = context
    }

    func run() async throws(CommandFailure) -> ExitCode {
        let repository = try? GitRepository.containing(context.workingDirectory)
        let (receipt, run, settings) = try await Self.upload(arguments, context: context, repository: repository)
        if arguments.value("--format") == "json" {
            context.printJSON(receipt)
        } else {
            context.print(Self.summary(receipt, run: run, settings: settings))
        }
        return .success
    }

    /// Reads the reports and uploads them; shared with `check`. `repository`: the git checkout
    /// the command runs in, if any.
    static func upload(_ arguments: ParsedArguments, context: CommandContext,
                       repository: GitRepository?) async throws(CommandFailure) -> (UploadReceipt, RunRecord, ClientSettings) {
        let settings = try await ClientSettings.resolve(arguments, environment: context.environment, repositoryRoot: repository?.directory)
        let paths = ReportFiles.paths(arguments.positionals, context: context)
        let contents = try ReportFiles.read(paths, runID: RunAssembly.runID(arguments, context: context))
        let checks = contents.checks
        if !contents.skippedFiles.isEmpty {
            context.printError("Note: skipped \(contents.skippedFiles.count) report file\(contents.skippedFiles.count == 1 ? "" : "s") of other test runs (\(contents.skippedFiles.map { ($0 as NSString).lastPathComponent }.prefix(3).joined(separator: ", "))\(contents.skippedFiles.count > 3 ? ", …" : "")); only \(contents.run.map { "run \($0)" } ?? "the newest run")'s reports are uploaded. Set LEAKHISTORY_RUN_ID for the tests and the upload to choose the run.\n")
        }
        guard !checks.isEmpty else {
            throw CommandFailure("No checks in \(paths.joined(separator: ", ")). Run your tests with LeakCheck first; they write one line per check.", code: .usage)
        }
        guard contents.recordedCommits.count <= 1 else {
            throw CommandFailure("The reports recorded \(contents.recordedCommits.count) commits (\(contents.recordedCommits.sorted().map { String($0.prefix(10)) }.joined(separator: ", "))): pass --commit, or --run-id for one run's files.", code: .usage)
        }
        let run = try RunAssembly(arguments, context: context, repository: repository, recordedCommit: contents.recordedCommits.first)
            .run(project: settings.project, environment: settings.environment, checks: checks)
        let receipt = try await LeakHistoryClient(settings: settings).upload(run, gzip: !arguments.has("--no-gzip"))
        return (receipt, run, settings)
    }

    static func summary(_ receipt: UploadReceipt, run: RunRecord, settings: ClientSettings) -> String {
        let what = receipt.created ? "Uploaded run \(receipt.runID)" : "Already uploaded as run \(receipt.runID) (same run key \(run.runKey)); nothing stored twice"
        var text = "\(what) to \(settings.server.absoluteString): \(counted(receipt.checks, "check")), \(receipt.leaked) leaked, "
            + "\(counted(receipt.lateRelease, "late release")), \(counted(receipt.errors, "error")).\n"
            + "  project \(run.project), environment \(run.environment), commit \(run.commit.prefix(10))\(run.branch.map { " on \($0)" } ?? "")\n"
        if receipt.suspect {
            text += "  Marked suspect: more than 80% of its \(receipt.checks) checks leaked or errored, which looks like a broken build rather than leaks; it is never used as a base, and check fails on it.\n"
        }
        return text
    }

    /// `1 check`, `2 checks`.
    private static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
