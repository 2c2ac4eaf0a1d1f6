import Foundation
import LeakReport

/// Builds the run an upload sends: the checks, and the commit, branch, parents and run key
/// from flags, else the CI provider, else git.
struct RunAssembly: Sendable {
    static let options: [CommandSpec.Option] = [
        .init(name: "--commit", valueName: "sha", help: "The commit the tests ran on (default: the one the reports recorded, LEAKHISTORY_COMMIT, the CI's, else HEAD)."),
        .init(name: "--run-id", valueName: "id", help: "Upload the report files of this test run only (default: LEAKHISTORY_RUN_ID, else the newest run's)."),
        .init(name: "--branch", valueName: "name", help: "Its branch (default: the CI's, else the checked-out branch)."),
        .init(name: "--run-key", valueName: "key", help: "Identifies this run, so a retry is stored once (default: the CI job and attempt, else a hash of the reports)."),
        .init(name: "--no-gzip", valueName: nil, help: "Send the reports uncompressed."),
    ]

    var commit: String
    var branch: String?
    var parents: [String]
    /// `--run-key`, used as given.
    var runKey: String?
    /// The CI job and attempt, which one job's matrix legs share: the run key adds the environment.
    var ciRunKey: String?

    /// - Parameter recordedCommit: the build's commit, as the tests recorded it in their reports.
    init(_ arguments: ParsedArguments, context: CommandContext, repository: GitRepository?, recordedCommit: String? = nil) throws(CommandFailure) {
        let ci = CIEnvironment.detect(context.environment)
        let commitSource = arguments.value("--commit") ?? recordedCommit ?? context.environment[ReportFileName.commitVariable] ?? ci?.commit
        if let commitSource, commitSource.count == 40, commitSource.allSatisfy(\.isHexDigit) {
            commit = commitSource.lowercased()
        } else if let repository {
            commit = try repository.commit(commitSource ?? "HEAD")
        } else {
            throw CommandFailure("Cannot tell which commit the tests ran on: not in a git repository and no --commit given. Pass --commit <40-hex sha>.", code: .usage)
        }
        branch = arguments.value("--branch") ?? ci?.branch ?? repository?.currentBranch()
        parents = repository?.parents(of: commit) ?? []
        runKey = arguments.value("--run-key")
        ciRunKey = ci?.runKey
    }

    /// The test run whose report files to upload: `--run-id`, else `LEAKHISTORY_RUN_ID`.
    static func runID(_ arguments: ParsedArguments, context: CommandContext) -> String? {
        arguments.value("--run-id") ?? context.environment[ReportFileName.runVariable]
    }

    func run(project: String, environment: String, checks: [CheckRecord]) -> RunRecord {
        RunRecord(
            project: project, commit: commit, branch: branch, parents: parents, environment: environment,
            runKey: runKey ?? derivedKey(environment: environment, checks: checks), startedAt: checks.map(\.timestamp).min() ?? Date(),
            tool: .init(name: "leakhistory", version: LeakHistoryCLI.version), checks: checks)
    }

    /// A run key when none is given: the CI job and attempt, else (locally) a hash of the
    /// reports, so the same reports at the same commit upload once. Either way it names the
    /// environment too: the legs of a CI matrix share a job, and the same reports may be sent
    /// for a second environment; neither is a retry of the first run.
    private func derivedKey(environment: String, checks: [CheckRecord]) -> String {
        if let ciRunKey { return "\(ciRunKey)-\(environment)" }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for check in checks {
            for byte in (try? encoder.encode(check)) ?? Data() {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        return "local-\(commit.prefix(12))-\(environment)-\(String(hash, radix: 16))"
    }
}
