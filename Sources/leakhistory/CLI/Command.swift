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

    /// Prints `value` as pretty, key-sorted JSON: the stable form scripts read.
    func printJSON(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self) + "\n")
    }

    func printError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
