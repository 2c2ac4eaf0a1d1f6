import Foundation
import LeakReport

/// `leakhistory suppress add|list|remove`: the project's suppressions — rules that report
/// matching leaks as suppressed instead of new, until they expire.
struct SuppressCommand: Command {
    static let spec = CommandSpec(
        name: "suppress",
        abstract: "Add, list or remove suppressions: known leaks that do not fail a build.",
        discussion: """
            add needs at least one pattern (--type, --scenario, --fingerprint; * matches any run of
            characters), a --reason, and takes an --expires date after which the rule no longer
            applies. Who added it is recorded: --by, else the CI actor, else git's user.email.
            Adding and removing need a write token; every diff output shows the rule next to the
            leaks it covers, and an expired rule as expired.
            """,
        arguments: [
            .init(name: "action", help: "add, list or remove."),
            .init(name: "id", help: "With remove: the rule's number, as list shows it.", isOptional: true),
        ],
        options: ClientSettings.options + [
            .init(name: "--type", valueName: "pattern", help: "The leaked type, e.g. 'App.*Cache'."),
            .init(name: "--scenario", valueName: "pattern", help: "The scenario, e.g. 'ProfileTests/*'."),
            .init(name: "--fingerprint", valueName: "pattern", help: "The leak's fingerprint, as diff prints it."),
            .init(name: "--reason", valueName: "text", help: "Why the leak is accepted for now: shown next to every leak it covers."),
            .init(name: "--expires", valueName: "date", help: "When the rule stops applying: 2026-12-31 or 2026-12-31T12:00:00Z."),
            .init(name: "--by", valueName: "who", help: "Who adds it (default: the CI actor, else git config user.email)."),
            .init(name: "--format", valueName: "format", help: "How list prints (default: text).", choices: ["text", "json"]),
        ],
        examples: [
            "leakhistory suppress add --type 'App.ImageCache' --reason 'cache kept on purpose, APP-12' --expires 2026-12-31",
            "leakhistory suppress list",
            "leakhistory suppress remove 3",
        ])

    enum Action: String { case add, list, remove }

    var arguments: ParsedArguments
    var context: CommandContext
    var action: Action

    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) {
        self.arguments = arguments
        self.context = context
        guard let first = arguments.positionals.first else {
            throw UsageError("Missing the action: add, list or remove", command: Self.spec)
        }
        guard let action = Action(rawValue: first) else {
            throw UsageError("Unknown action '\(first)'; use add, list or remove", command: Self.spec)
        }
        self.action = action
        let expected = action == .remove ? 2 : 1
        guard arguments.positionals.count == expected else {
            throw UsageError(action == .remove ? "remove takes the rule's number, e.g. leakhistory suppress remove 3"
                                               : "\(first) takes no further arguments, got \(arguments.positionals.dropFirst().joined(separator: " "))",
                             command: Self.spec)
        }
        if action == .add {
            guard ["--type", "--scenario", "--fingerprint"].contains(where: { arguments.value($0) != nil }) else {
                throw UsageError("add needs at least one of --type, --scenario, --fingerprint", command: Self.spec)
            }
            guard let reason = arguments.value("--reason"), !reason.isEmpty else {
                throw UsageError("add needs --reason: say why the leak is accepted, e.g. --reason 'tracked in APP-12'", command: Self.spec)
            }
            if let expires = arguments.value("--expires"), Self.expiry(expires) == nil {
                throw UsageError("'\(expires)' is not a valid value for '--expires <date>'; use 2026-12-31 or 2026-12-31T12:00:00Z", command: Self.spec)
            }
        }
        if action == .remove, Int(arguments.positionals[1]).map({ $0 > 0 }) != true {
            throw UsageError("'\(arguments.positionals[1])' is not a rule number; leakhistory suppress list shows them", command: Self.spec)
        }
    }

    /// A day (midnight UTC) or an ISO 8601 time, as the API takes it.
    static func expiry(_ text: String) -> String? {
        if text.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil {
            return ReportTimestamp.date(from: text + "T00:00:00Z") == nil ? nil : text + "T00:00:00Z"
        }
        return ReportTimestamp.date(from: text) == nil ? nil : text
    }

    func run() async throws(CommandFailure) -> ExitCode {
        let repository = try? GitRepository.containing(context.workingDirectory)
        let settings = try await ClientSettings.resolve(arguments, environment: context.environment, repositoryRoot: repository?.directory)
        let client = LeakHistoryClient(settings: settings)
        switch action {
        case .add:
            let who = arguments.value("--by") ?? CIEnvironment.actor(context.environment)
                ?? (try? repository?.run(["config", "user.email"])).flatMap { $0.isEmpty ? nil : $0 }
            let stored = try await client.addSuppression(SuppressionDraft(
                type: arguments.value("--type"), scenario: arguments.value("--scenario"),
                fingerprint: arguments.value("--fingerprint"), reason: arguments.value("--reason")!,
                expiresAt: arguments.value("--expires").flatMap(Self.expiry), createdBy: who))
            context.print("Added suppression #\(stored.id) to project '\(settings.project)': \(stored.patterns), "
                          + "\"\(stored.reason)\", \(stored.expiresAt.map { "expires \($0)" } ?? "no expiry")"
                          + (stored.createdBy.map { ", added by \($0)" } ?? ", author unknown (pass --by)") + ".\n")
            if let expiry = arguments.value("--expires").flatMap(Self.expiry).flatMap(ReportTimestamp.date(from:)), expiry <= Date() {
                context.printError("Warning: suppression #\(stored.id) expired already (\(arguments.value("--expires")!) is in the past): "
                                   + "it covers nothing and diffs list it as expired. Remove it (leakhistory suppress remove \(stored.id)) "
                                   + "and add it again with a later --expires, if that is what you meant.\n")
            }
        case .list:
            let list = try await client.suppressions()
            if arguments.value("--format") == "json" {
                context.printJSON(list)
            } else {
                context.print(Self.text(list, project: settings.project))
            }
        case .remove:
            let id = Int(arguments.positionals[1])!
            try await client.removeSuppression(id: id)
            context.print("Removed suppression #\(id) from project '\(settings.project)'.\n")
        }
        return .success
    }

    static func text(_ list: SuppressionList, project: String) -> String {
        guard !list.suppressions.isEmpty else { return "Project '\(project)' has no suppressions.\n" }
        var text = "Suppressions of project '\(project)':\n"
        for rule in list.suppressions {
            let expiry = rule.expiresAt.map { rule.active ? "expires \($0)" : "EXPIRED \($0)" } ?? "no expiry"
            text += "  #\(rule.id)  \(rule.patterns)  \"\(rule.reason)\"  \(expiry)  added by \(rule.createdBy ?? "unknown")\n"
        }
        return text
    }
}
