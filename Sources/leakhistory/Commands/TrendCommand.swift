import Foundation
import LeakReport

/// `leakhistory trend TYPE [--branch main]`
struct TrendCommand: Command {
    static let spec = CommandSpec(
        name: "trend",
        abstract: "Show how one type's leaks trend along a branch.",
        arguments: [.init(name: "type", help: "The module-qualified type, e.g. App.ProfileViewModel.")],
        options: ClientSettings.options + [
            .init(name: "--branch", valueName: "name", help: "The branch to follow (default: main)."),
            .init(name: "--limit", valueName: "n", help: "How many commits, newest last (default: 30)."),
            .init(name: "--format", valueName: "format", help: "How to print the result (default: text).", choices: ["text", "json"]),
        ],
        examples: ["leakhistory trend App.ProfileViewModel", "leakhistory trend App.ImageCache --branch release/2.0 --limit 100"])

    var arguments: ParsedArguments
    var context: CommandContext
    var type: String
    var limit: Int

    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) {
        self.arguments = arguments
        self.context = context
        guard arguments.positionals.count == 1 else {
            throw UsageError("Expected one type name, e.g. leakhistory trend App.ProfileViewModel", command: Self.spec)
        }
        type = arguments.positionals[0]
        let limitText = arguments.value("--limit") ?? "30"
        guard let limit = Int(limitText), (1...1000).contains(limit) else {
            throw UsageError("'\(limitText)' is not a valid value for '--limit <n>'; use a number from 1 to 1000", command: Self.spec)
        }
        self.limit = limit
    }

    func run() async throws(CommandFailure) -> ExitCode {
        let repository = try? GitRepository.containing(context.workingDirectory)
        let settings = try await ClientSettings.resolve(arguments, environment: context.environment, repositoryRoot: repository?.directory)
        let branch = arguments.value("--branch") ?? "main"
        let trend = try await LeakHistoryClient(settings: settings).trend(type: type, branch: branch, limit: limit)
        if arguments.value("--format") == "json" {
            context.printJSON(trend)
            return .success
        }
        context.print(Self.render(trend))
        return .success
    }

    static func render(_ trend: TrendResponse) -> String {
        guard !trend.points.isEmpty else {
            return "No uploads on \(trend.branch) checked \(trend.type).\n"
        }
        var text = "\(trend.type) on \(trend.branch): \(Sparkline.draw(trend.points.map(\.leakedKeys)))  "
            + "(leaking scenarios per commit, oldest first)\n\n"
        text += "  commit      date                  leaked  checked  scenarios\n"
        for point in trend.points {
            let date = String(point.at.prefix(19)).replacingOccurrences(of: "T", with: " ")
            text += "  \(point.commit.prefix(10))  \(date.padding(toLength: 20, withPad: " ", startingAt: 0))  "
                + "\(String(point.leakedKeys).leftPadded(6))  \(String(point.checkedKeys).leftPadded(7))  "
                + "\(point.scenarios.prefix(3).joined(separator: ", "))\(point.scenarios.count > 3 ? ", …" : "")\n"
        }
        return text
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
