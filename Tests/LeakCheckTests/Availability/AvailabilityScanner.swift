import Foundation

/// Finds uses of APIs above the package's deployment floor (macOS 13, iOS 16, tvOS 16,
/// watchOS 9, visionOS 1) in Swift source, for the targets apps add to their test targets.
///
/// Reads code only: comments and the text of string literals are removed first (the code in a
/// string's interpolations is kept), so a comment that says "not `Mutex`" is no violation and
/// `"\(Mutex(0))"` is one. A rule is a sequence of identifiers matched as whole tokens, so
/// `MutexLike` does not match `Mutex`.
struct AvailabilityScanner {
    struct Rule {
        /// Identifiers in a row, e.g. `["Mutex"]` or `["isolated", "deinit"]`.
        var tokens: [String]
        /// Where it is available, and what to use instead.
        var reason: String
    }

    struct Violation: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var rule: String
        var reason: String

        var description: String {
            "\(file):\(line): uses \(rule) — \(reason). LeakCheck, LeakReport and LeakCheckUIKit must build for "
                + "macOS 13 / iOS 16 / tvOS 16 / watchOS 9 / visionOS 1 (Package.swift `platforms`)."
        }
    }

    /// The maintained list: add an API here when it is found above the floor.
    static let rules: [Rule] = [
        Rule(tokens: ["Synchronization"], reason: "the Synchronization module needs macOS 15 / iOS 18; use LeakCheck's Locked"),
        Rule(tokens: ["Mutex"], reason: "Synchronization.Mutex needs macOS 15 / iOS 18; use LeakCheck's Locked"),
        Rule(tokens: ["Atomic"], reason: "Synchronization.Atomic needs macOS 15 / iOS 18; use LeakCheck's Locked"),
        Rule(tokens: ["AtomicRepresentable"], reason: "Synchronization needs macOS 15 / iOS 18"),
        Rule(tokens: ["OSAllocatedUnfairLock"], reason: "os.OSAllocatedUnfairLock is Apple-only (no Linux) and its Swift form has changed between SDKs; use LeakCheck's Locked"),
        Rule(tokens: ["Observation"], reason: "the Observation module needs macOS 14 / iOS 17"),
        Rule(tokens: ["Observable"], reason: "@Observable needs macOS 14 / iOS 17"),
        Rule(tokens: ["withObservationTracking"], reason: "Observation needs macOS 14 / iOS 17"),
        Rule(tokens: ["withDiscardingTaskGroup"], reason: "needs macOS 14 / iOS 17; use withTaskGroup"),
        Rule(tokens: ["withThrowingDiscardingTaskGroup"], reason: "needs macOS 14 / iOS 17; use withThrowingTaskGroup"),
        Rule(tokens: ["SwiftData"], reason: "SwiftData needs macOS 14 / iOS 17"),
        Rule(tokens: ["InlineArray"], reason: "InlineArray needs macOS 26 / iOS 26"),
        Rule(tokens: ["Span"], reason: "Span needs macOS 26 / iOS 26 (back-deployed only with newer toolchains' runtime)"),
        Rule(tokens: ["RawSpan"], reason: "RawSpan needs macOS 26 / iOS 26"),
        Rule(tokens: ["MutableSpan"], reason: "MutableSpan needs macOS 26 / iOS 26"),
        Rule(tokens: ["isolated", "deinit"], reason: "an isolated deinit needs macOS 15.4 / iOS 18.4"),
    ]

    var rules: [Rule] = Self.rules

    /// The violations in one file's `source`, each at its line.
    func violations(in source: String, file: String) -> [Violation] {
        let tokens = Self.codeTokens(source)
        var found: [Violation] = []
        for index in tokens.indices {
            for rule in rules where index + rule.tokens.count <= tokens.count {
                let slice = tokens[index..<(index + rule.tokens.count)]
                if slice.map(\.text) == rule.tokens {
                    found.append(Violation(
                        file: file, line: tokens[index].line, rule: rule.tokens.joined(separator: " "), reason: rule.reason))
                }
            }
        }
        return found
    }

    /// Every `.swift` file under `folders` (recursively), scanned.
    func violations(inFolders folders: [URL], relativeTo root: URL) throws -> [Violation] {
        var found: [Violation] = []
        for folder in folders {
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                let source = try String(contentsOf: url, encoding: .utf8)
                let relative = url.path.hasPrefix(root.path + "/") ? String(url.path.dropFirst(root.path.count + 1)) : url.path
                found += violations(in: source, file: relative)
            }
        }
        return found
    }

    struct Token: Equatable {
        var text: String
        var line: Int
    }

    /// The identifiers of `source`'s code, in order, with their lines: comments (nested block
    /// comments too) and string literal text (plain, multi-line, raw `#"…"#`) left out, string
    /// interpolations scanned as code. Backticks are dropped (`` `Mutex` `` is `Mutex`).
    static func codeTokens(_ source: String) -> [Token] {
        var tokens: [Token] = []
        var line = 1
        var text = String.UnicodeScalarView()
        func flush() {
            if !text.isEmpty { tokens.append(Token(text: String(text), line: line)) }
            text = String.UnicodeScalarView()
        }
        for c in codeText(source).unicodeScalars {
            if c == "_" || CharacterSet.alphanumerics.contains(c) {
                if !text.isEmpty || c == "_" || CharacterSet.letters.contains(c) { text.append(c) }
                continue
            }
            flush()
            if c == "\n" { line += 1 }
        }
        flush()
        return tokens
    }

    /// `source` with its comments and the text of its string literals blanked out (string
    /// interpolations kept as code, backticks dropped), line breaks kept where they were, so that
    /// a pattern found in it is code, at the same line.
    static func codeText(_ source: String) -> String {
        let chars = Array(source.unicodeScalars)
        var code = String.UnicodeScalarView()
        var index = 0
        /// For each string literal we are inside: its number of `#`, whether it is multi-line,
        /// and the parenthesis depth of the interpolation we are in (nil: in the text).
        var strings: [(hashes: Int, multiline: Bool, interpolationDepth: Int?)] = []

        func at(_ offset: Int) -> Unicode.Scalar? {
            index + offset < chars.count ? chars[index + offset] : nil
        }
        /// Moves past `count` characters that are not code, keeping their line breaks.
        func skip(_ count: Int) {
            for offset in 0..<count where index + offset < chars.count {
                code.append(chars[index + offset] == "\n" ? "\n" : " ")
            }
            index += count
        }
        /// Whether a string literal opens at `index`; returns its hashes and quote count.
        func stringOpening() -> (hashes: Int, quotes: Int)? {
            var hashes = 0
            while at(hashes) == "#" { hashes += 1 }
            guard at(hashes) == "\"" else { return nil }
            let multiline = at(hashes + 1) == "\"" && at(hashes + 2) == "\""
            return (hashes, multiline ? 3 : 1)
        }

        while index < chars.count {
            let c = chars[index]
            // Inside the text of a string literal.
            if let current = strings.last, current.interpolationDepth == nil {
                if c == "\\" {
                    var hashes = 0
                    while at(1 + hashes) == "#" { hashes += 1 }
                    if hashes == current.hashes, at(1 + hashes) == "(" {
                        strings[strings.count - 1].interpolationDepth = 0
                        skip(2 + hashes)
                        continue
                    }
                    skip(current.hashes == 0 ? 2 : 1)   // an escaped character, e.g. \" in a plain string
                    continue
                }
                let quotes = current.multiline ? 3 : 1
                if c == "\"", (0..<quotes).allSatisfy({ at($0) == "\"" }), (0..<current.hashes).allSatisfy({ at(quotes + $0) == "#" }) {
                    strings.removeLast()
                    skip(quotes + current.hashes)
                    continue
                }
                skip(1)
                continue
            }
            // Code: at top level or inside an interpolation.
            if c == "/", at(1) == "/" {
                while index < chars.count, chars[index] != "\n" { skip(1) }
                continue
            }
            if c == "/", at(1) == "*" {
                var depth = 0
                repeat {
                    if chars[index] == "/", at(1) == "*" { depth += 1; skip(2); continue }
                    if chars[index] == "*", at(1) == "/" { depth -= 1; skip(2); continue }
                    skip(1)
                } while depth > 0 && index < chars.count
                continue
            }
            if let opening = stringOpening() {
                strings.append((opening.hashes, opening.quotes == 3, nil))
                skip(opening.hashes + opening.quotes)
                continue
            }
            if !strings.isEmpty, let depth = strings.last?.interpolationDepth {
                if c == "(" { strings[strings.count - 1].interpolationDepth = depth + 1 }
                if c == ")" {
                    strings[strings.count - 1].interpolationDepth = depth == 0 ? nil : depth - 1
                    skip(1)
                    continue
                }
            }
            if c == "`" { skip(1); continue }
            code.append(c)
            index += 1
        }
        return String(code)
    }
}
