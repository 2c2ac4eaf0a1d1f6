/// What a command accepts and how its help reads: the one description both the parser and
/// `--help` use, so they cannot disagree.
struct CommandSpec: Sendable {
    struct Option: Sendable {
        /// `--server`; the name values are stored under.
        var name: String
        /// `url` for `--server <url>`; nil for a flag.
        var valueName: String?
        var help: String
        /// Values the option accepts, when they are a closed set (`text`, `json`, …).
        var choices: [String]? = nil

        var usage: String { valueName.map { "\(name) <\($0)>" } ?? name }
    }

    struct Argument: Sendable {
        var name: String
        var help: String
        var isRepeated = false
        var isOptional = false
    }

    var name: String
    var abstract: String
    var discussion: String? = nil
    var arguments: [Argument] = []
    var options: [Option] = []
    var examples: [String] = []

    func option(named name: String) -> Option? {
        options.first { $0.name == name }
    }

    var usageLine: String {
        var parts = ["leakhistory", name]
        if !options.isEmpty { parts.append("[<options>]") }
        for argument in arguments {
            let shown = "<\(argument.name)>" + (argument.isRepeated ? " ..." : "")
            parts.append(argument.isOptional || argument.isRepeated ? "[\(shown)]" : shown)
        }
        return parts.joined(separator: " ")
    }

    /// OVERVIEW, USAGE, ARGUMENTS, OPTIONS, EXAMPLES; two-space indent.
    var help: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion { text += "\n" + discussion.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n") + "\n" }
        text += "\nUSAGE: \(usageLine)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n" + Self.columns(arguments.map { ("<\($0.name)>", $0.help) })
        }
        let all = options + [Option(name: "--help", valueName: nil, help: "Show this help.")]
        text += "\nOPTIONS:\n" + Self.columns(all.map { option in
            (option.usage, option.help + (option.choices.map { " (\($0.joined(separator: "|")))" } ?? ""))
        })
        if !examples.isEmpty {
            text += "\nEXAMPLES:\n" + examples.map { "  \($0)\n" }.joined()
        }
        return text
    }

    static func columns(_ rows: [(String, String)]) -> String {
        let width = min((rows.map(\.0.count).max() ?? 0) + 2, 34)
        return rows.map { left, right in
            let pad = left.count >= width ? "\n" + String(repeating: " ", count: width + 2) : String(repeating: " ", count: width - left.count)
            return "  \(left)\(pad)\(right)\n"
        }.joined()
    }
}
