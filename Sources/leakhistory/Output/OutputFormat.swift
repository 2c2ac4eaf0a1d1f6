import Foundation

/// How results are printed: `text` for people, `json` for scripts (stable, documented in the
/// README), `markdown` for a pull-request comment, `github` for GitHub Actions annotations,
/// `sarif` for code scanning (SARIF 2.1.0).
enum OutputFormat: String, CaseIterable, Sendable {
    case text, json, markdown, github, sarif

    static let option = CommandSpec.Option(
        name: "--format", valueName: "format", help: "How to print the result (default: text).",
        choices: allCases.map(\.rawValue))

    init(_ arguments: ParsedArguments) {
        self = arguments.value("--format").flatMap(OutputFormat.init(rawValue:)) ?? .text
    }
}

/// Colour only on a terminal, and never with `NO_COLOR` set.
struct Palette: Sendable {
    var enabled: Bool

    static func forStandardOutput(environment: [String: String]) -> Palette {
        Palette(enabled: isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb")
    }

    func red(_ text: String) -> String { paint(text, "31") }
    func green(_ text: String) -> String { paint(text, "32") }
    func yellow(_ text: String) -> String { paint(text, "33") }
    func bold(_ text: String) -> String { paint(text, "1") }
    func dim(_ text: String) -> String { paint(text, "2") }

    private func paint(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
