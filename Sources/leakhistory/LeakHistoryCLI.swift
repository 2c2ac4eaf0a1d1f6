import Foundation

/// The `leakhistory` command: finds the subcommand, parses its arguments, runs it, and turns
/// every failure into a message on standard error and an exit code.
enum LeakHistoryCLI {
    static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        UploadCommand.self, DiffCommand.self, CheckCommand.self, TrendCommand.self, TypesCommand.self, SuppressCommand.self,
    ]

    static var overview: String {
        """
        OVERVIEW: Keep the history of your Swift tests' memory leaks, and fail CI on new ones.

        USAGE: leakhistory <subcommand> [<options>]

        SUBCOMMANDS:
        \(CommandSpec.columns(commands.map { ($0.spec.name, $0.spec.abstract) } + [("help <subcommand>", "Show a subcommand's help (the same as <subcommand> --help).")]).dropLast())

        OPTIONS:
        \(CommandSpec.columns([("--help", "Show this help."), ("--version", "Show the version.")]).dropLast())

        Settings come from flags, else LEAKHISTORY_SERVER, LEAKHISTORY_TOKEN, LEAKHISTORY_PROJECT and
        LEAKHISTORY_ENVIRONMENT, else .leakhistory.json at the repository root.

        EXAMPLES:
          swift test && leakhistory check --base main
          leakhistory diff main..HEAD --format markdown

        """
    }

    static func main(_ arguments: [String], context: CommandContext) async -> ExitCode {
        guard let first = arguments.first else {
            context.printError(overview)
            return .usage
        }
        switch first {
        case "--help", "-h":
            context.print(overview)
            return .success
        case "--version":
            context.print("leakhistory \(version)\n")
            return .success
        case "help":
            guard let name = arguments.dropFirst().first else {
                context.print(overview)
                return .success
            }
            guard let command = command(named: name) else { return unknownCommand(name, context: context) }
            context.print(command.spec.help)
            return .success
        default:
            guard let command = command(named: first) else { return unknownCommand(first, context: context) }
            return await run(command, Array(arguments.dropFirst()), context: context)
        }
    }

    private static func run(_ type: any Command.Type, _ arguments: [String], context: CommandContext) async -> ExitCode {
        do {
            let parsed = try ParsedArguments.parse(arguments, for: type.spec)
            if parsed.wantsHelp {
                context.print(type.spec.help)
                return .success
            }
            let command = try type.init(parsed, context: context)
            return try await command.run()
        } catch let error as UsageError {
            context.printError(error.rendered)
            return .usage
        } catch let failure as CommandFailure {
            context.printError("Error: \(failure.message)\n")
            return failure.code
        } catch {
            context.printError("Error: \(error)\n")
            return .usage
        }
    }

    private static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.spec.name == name }
    }

    private static func unknownCommand(_ name: String, context: CommandContext) -> ExitCode {
        var message = "Unknown subcommand '\(name)'."
        if let closest = closestMatch(to: name, among: commands.map { $0.spec.name } + ["help"]) {
            message += " Did you mean '\(closest)'?"
        }
        context.printError(UsageError(message, command: nil).rendered)
        return .usage
    }
}
