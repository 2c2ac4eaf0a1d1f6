/// The command `check --confirm-with` runs to test some scenarios again, with placeholders that
/// name them in the test runner's own terms:
///
/// - `{filter}`: one regular expression for `swift test --filter`, matching each scenario as
///   SwiftPM names it (`Module.Suite/test()` for Swift Testing, `Module.Class/testMethod` for XCTest);
/// - `{only-testing:TARGET}`: one `-only-testing:TARGET/Suite/test()` argument a scenario for
///   `xcodebuild test` (an XCTest method, `testX()`, as `TARGET/Class/testX`);
/// - `{scenarios}`: the scenario ids as they are, one argument each, for a script of your own.
///
/// Each expansion is quoted for `/bin/sh`, which runs the command.
///
/// ```
/// swift test --filter {filter}
/// xcodebuild test -scheme App -destination 'platform=iOS Simulator,name=iPhone 16' {only-testing:AppTests}
/// ```
struct RerunCommand: Sendable, Hashable {
    let template: String

    static let placeholders = ["{filter}", "{only-testing:TARGET}", "{scenarios}"]

    /// Checks that every `{…}` in `template` is a placeholder this command knows.
    init(_ template: String) throws(UsageError) {
        guard !template.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw UsageError("'--confirm-with' needs a command, e.g. 'swift test --filter {filter}'", command: CheckCommand.spec)
        }
        for piece in Self.pieces(of: template) {
            guard case let .placeholder(name) = piece else { continue }
            guard Self.expansion(of: name, scenarios: []) != nil else {
                throw UsageError(
                    "Unknown placeholder '{\(name)}' in '--confirm-with'; use \(Self.placeholders.joined(separator: ", "))",
                    command: CheckCommand.spec)
            }
        }
        self.template = template
    }

    /// The command line that tests `scenarios` again.
    func expanded(for scenarios: [String]) -> String {
        Self.pieces(of: template).map { piece in
            switch piece {
            case let .text(text): text
            case let .placeholder(name): Self.expansion(of: name, scenarios: scenarios) ?? ""
            }
        }.joined()
    }

    /// What `{name}` becomes for `scenarios`; nil for a name that is no placeholder.
    private static func expansion(of name: String, scenarios: [String]) -> String? {
        if name == "filter" { return shellQuoted(filter(for: scenarios)) }
        if name == "scenarios" { return scenarios.map(shellQuoted).joined(separator: " ") }
        let onlyTesting = "only-testing:"
        if name.hasPrefix(onlyTesting), name.count > onlyTesting.count, !name.contains(" ") {
            let target = name.dropFirst(onlyTesting.count)
            return scenarios.map { shellQuoted("-only-testing:\(target)/\(xcodeIdentifier(of: $0))") }.joined(separator: " ")
        }
        return nil
    }

    /// A regular expression that `swift test --filter` matches against every one of `scenarios`
    /// and, as far as names allow, no other test: the scenario without its argument list, after
    /// the module's `.` (or at the start, or after a `/` of an enclosing suite), and followed by
    /// the argument list (Swift Testing) or the end (XCTest).
    static func filter(for scenarios: [String]) -> String {
        let names = Set(scenarios.map { escapedForRegex(withoutArguments($0)) }).sorted()
        return "(^|[./])(" + names.joined(separator: "|") + ")(\\(|$)"
    }

    /// How `xcodebuild -only-testing:` names a scenario below its target: a Swift Testing test
    /// with its argument list (`Suite/open()`), an XCTest method without it (`Class/testOpen`).
    static func xcodeIdentifier(of scenario: String) -> String {
        let last = scenario.split(separator: "/").last.map(String.init) ?? scenario
        if last.hasPrefix("test"), last.hasSuffix("()") { return String(scenario.dropLast(2)) }
        return scenario
    }

    /// `Suite/open(id:)` → `Suite/open`.
    private static func withoutArguments(_ scenario: String) -> String {
        guard scenario.hasSuffix(")"), let open = scenario.lastIndex(of: "("),
              !scenario[open...].contains("/") else { return scenario }
        return String(scenario[..<open])
    }

    private static func escapedForRegex(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// `it's` → `'it'\''s'`: one word for `/bin/sh`, whatever it holds.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private enum Piece {
        case text(String)
        case placeholder(String)
    }

    /// `template` cut into text and `{…}` placeholders. A `{` with no `}` after it is text, and
    /// so is the shell's own `${…}`.
    private static func pieces(of template: String) -> [Piece] {
        var pieces: [Piece] = []
        var text = ""
        var index = template.startIndex
        while index < template.endIndex {
            let character = template[index]
            if character == "{", !text.hasSuffix("$"), let close = template[index...].firstIndex(of: "}") {
                pieces.append(.text(text))
                text = ""
                pieces.append(.placeholder(String(template[template.index(after: index)..<close])))
                index = template.index(after: close)
                continue
            }
            text.append(character)
            index = template.index(after: index)
        }
        pieces.append(.text(text))
        return pieces
    }
}
