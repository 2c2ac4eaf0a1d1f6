import Foundation

/// One `leakhistory` subcommand: its spec (name, abstract, options, help), how it checks its
/// arguments, and what it does.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Reads and checks the arguments; a `UsageError` becomes exit code 2.
    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError)
    /// Does the work and says which exit code the build gets.
    func run() async throws(CommandFailure) -> ExitCode
}

/// What a command may read of the world: passed in, so that tests and the binary agree.
struct CommandContext: Sendable {
    var environment: [String: String]
    var workingDirectory: String

    static var current: CommandContext {
        CommandContext(environment: ProcessInfo.processInfo.environment, workingDirectory: FileManager.default.currentDirectoryPath)
    }

    func print(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    func printError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
