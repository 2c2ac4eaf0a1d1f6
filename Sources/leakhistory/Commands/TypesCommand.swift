import Foundation
import LeakReport

/// `leakhistory types [--branch main]`
struct TypesCommand: Command {
    static let spec = CommandSpec(
        name: "types",
        abstract: "List the types that leak at a branch's head, with their direction.",
        options: ClientSettings.options + [
            .init(name: "--branch", valueName: "name", help: "The branch (default: main)."),
            .init(name: "--format", valueName: "format", help: "How to print the result (default: text).", choices: ["text", "json"]),
        ],
        examples: ["leakhistory types", "leakhistory types --branch develop --format json"])

    var arguments: ParsedArguments
    var context: CommandContext

    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) {
        guard arguments.positionals.isEmpty else {
            throw UsageError("types takes no arguments, got \(arguments.positionals.joined(separator: " "))", command: Self.spec)
        }
        self.arguments = arguments
        self.context = context
    }

    func run() async throws(CommandFailure) -> ExitCode {
        let repository = try? GitRepository.containing(context.workingDirectory)
        let settings = try await ClientSettings.resolve(arguments, environment: context.environment, repositoryRoot: repository?.directory)
        let answer = try await LeakHistoryClient(settings: settings).types(branch: arguments.value("--branch") ?? "main")
        if arguments.value("--format") == "json" {
            context.printJSON(answer)
            return .success
        }
        guard !answer.types.isEmpty else {
            context.print("Nothing leaks at the head of \(answer.branch)\(answer.head.map { " (\($0.prefix(10)))" } ?? "").\n")
            return .success
        }
        var text = "Types leaking at the head of \(answer.branch)\(answer.head.map { " (\($0.prefix(10)))" } ?? ""):\n\n"
        for summary in answer.types {
            let arrow = summary.direction == .rising ? "↑ rising" : summary.direction == .falling ? "↓ falling" : "→ flat"
            text += "  \(summary.type)  \(arrow)  in \(summary.leakingScenarios.count) scenario\(summary.leakingScenarios.count == 1 ? "" : "s")"
                + "  first \(summary.firstSeen.prefix(10)), last \(summary.lastSeen.prefix(10))\n"
        }
        context.print(text)
        return .success
    }
}
