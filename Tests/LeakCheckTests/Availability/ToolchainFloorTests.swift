import Foundation
import Testing

/// Package.swift's tools version is the oldest Swift that builds the package (Xcode 16.3's 6.1):
/// a Swift Testing or XCTest API that came later must sit behind `#if compiler(>=…)` at least
/// its version, with a fallback, or an Xcode 16 user gets errors deep inside LeakCheck. Linux has
/// one toolchain only, so this reads the sources instead.
@Suite struct ToolchainFloorTests {
    @Test func newerTestingAPIsAreBehindCompilerChecks() throws {
        let root = AvailabilityFloorTests.root
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let floor = try #require(ToolchainFloorScanner.toolsVersion(of: manifest), "Package.swift names no swift-tools-version")
        let scanner = ToolchainFloorScanner(floor: floor)
        var violations: [String] = []
        for target in AvailabilityFloorTests.guardedTargets {
            let folder = root.appendingPathComponent("Sources/\(target)")
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                let source = try String(contentsOf: url, encoding: .utf8)
                violations += scanner.violations(in: source, file: "Sources/\(target)/\(url.lastPathComponent)")
            }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }

    @Test func theFloorIsReadFromTheManifest() {
        #expect(ToolchainFloorScanner.toolsVersion(of: "// swift-tools-version: 6.1\nimport PackageDescription") == [6, 1])
        #expect(ToolchainFloorScanner.toolsVersion(of: "// swift-tools-version:5.9.2\n") == [5, 9, 2])
        #expect(ToolchainFloorScanner.toolsVersion(of: "import PackageDescription") == nil)
    }

    @Test func anUnguardedNewerAPIIsFound() {
        let source = """
            import Testing
            func f(_ issue: Issue) {
                Issue.record(Comment(rawValue: "x"), severity: .warning, sourceLocation: here)
                _ = issue.isFailure
                let handler = IssueHandlingTrait.compactMapIssues { $0 }
            }
            """
        let found = ToolchainFloorScanner(floor: [6, 1]).violations(in: source, file: "Planted.swift")
        #expect(found == [
            "Planted.swift:3: Issue.record(_:severity:sourceLocation:) needs Swift 6.3; put it behind #if compiler(>=6.3) with a fallback",
            "Planted.swift:4: Issue.isFailure needs Swift 6.3; put it behind #if compiler(>=6.3) with a fallback",
            "Planted.swift:5: IssueHandlingTrait needs Swift 6.2; put it behind #if compiler(>=6.2) with a fallback",
        ])
        #expect(ToolchainFloorScanner(floor: [6, 3]).violations(in: source, file: "Planted.swift").isEmpty)
    }

    @Test func aGuardOfTheRightVersionCoversOnlyItsBranch() {
        let source = """
            #if compiler(>=6.3) && !SOMETHING
            var warning = issue
            warning.severity = .warning
            #else
            _ = issue.isFailure
            #endif
            #if compiler(>=6.2)
            _ = issue.isFailure
            #endif
            // issue.isFailure in a comment, and "issue.isFailure" in a string, are not code
            let s = "issue.isFailure"
            """
        let found = ToolchainFloorScanner(floor: [6, 1]).violations(in: source, file: "G.swift")
        #expect(found.map { $0.components(separatedBy: ": ").first! } == ["G.swift:5", "G.swift:8"])
    }
}

/// Finds uses of Swift Testing and XCTest APIs newer than a toolchain floor outside an
/// `#if compiler(>=…)` branch of at least their version. Reads code only
/// (`AvailabilityScanner.codeText`: no comments, no string text).
struct ToolchainFloorScanner {
    struct Rule {
        var name: String
        var version: [Int]
        /// Matched against code with comments and string text blanked out.
        var pattern: String
    }

    /// The maintained list, from the swift-testing and XCTest release notes.
    static let rules: [Rule] = [
        Rule(name: "Issue.record(_:severity:sourceLocation:)", version: [6, 3],
             pattern: #"\bIssue\s*\.\s*record\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\bseverity\s*:"#),
        Rule(name: "Issue.isFailure", version: [6, 3], pattern: #"\.\s*isFailure\b"#),
        Rule(name: "setting Issue.severity", version: [6, 3], pattern: #"\.\s*severity\s*=[^=]"#),
        Rule(name: "Issue.Severity", version: [6, 3], pattern: #"\bIssue\s*\.\s*Severity\b"#),
        Rule(name: "IssueHandlingTrait", version: [6, 2], pattern: #"\bIssueHandlingTrait\b"#),
        Rule(name: "Test.cancel", version: [6, 3], pattern: #"\bTest\s*\.\s*cancel\b"#),
        Rule(name: "TestScoping", version: [6, 1], pattern: #"\bTestScoping\b"#),
        Rule(name: "Attachment", version: [6, 2], pattern: #"\bAttachment\s*[.(<]"#),
        Rule(name: "#expect(processExitsWith:)", version: [6, 2], pattern: #"\bprocessExitsWith\s*:"#),
    ]

    let floor: [Int]

    /// `// swift-tools-version: 6.1` → `[6, 1]`.
    static func toolsVersion(of manifest: String) -> [Int]? {
        guard let line = manifest.split(separator: "\n", omittingEmptySubsequences: false).first,
              let range = line.range(of: "swift-tools-version:") else { return nil }
        let parts = line[range.upperBound...].trimmingCharacters(in: .whitespaces).split(separator: ".").compactMap { Int($0) }
        return parts.isEmpty ? nil : parts
    }

    func violations(in source: String, file: String) -> [String] {
        let code = AvailabilityScanner.codeText(source)
        let guards = Self.guardedVersions(code)
        let lineStarts = code.indices.filter { $0 == code.startIndex || code[code.index(before: $0)] == "\n" }
        func line(of index: String.Index) -> Int { lineStarts.lastIndex { $0 <= index }! + 1 }
        var found: [(line: Int, text: String)] = []
        for rule in Self.rules where floor.lexicographicallyPrecedes(rule.version) {
            let regex = try! NSRegularExpression(pattern: rule.pattern)
            for match in regex.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
                let at = line(of: Range(match.range, in: code)!.lowerBound)
                let guarded = guards[at - 1]
                if guarded.lexicographicallyPrecedes(rule.version) {
                    let version = rule.version.map(String.init).joined(separator: ".")
                    found.append((at, "\(file):\(at): \(rule.name) needs Swift \(version); put it behind #if compiler(>=\(version)) with a fallback"))
                }
            }
        }
        return found.sorted { $0.line < $1.line }.map(\.text)
    }

    /// For each line, the newest compiler the `#if compiler(>=…)` branches around it guarantee
    /// (`[]` when none): an `#if` whose condition requires `compiler(>=V)` (not in an `||`)
    /// guarantees V in its first branch only.
    static func guardedVersions(_ code: String) -> [[Int]] {
        var stack: [(outer: [Int], branch: [Int])] = []
        var result: [[Int]] = []
        for line in code.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            let current = stack.last?.branch ?? []
            if text.hasPrefix("#if") {
                let required = text.contains("||") ? nil : requiredCompiler(text)
                stack.append((current, max(current, required ?? [])))
            } else if text.hasPrefix("#else") || text.hasPrefix("#elseif"), let top = stack.popLast() {
                stack.append((top.outer, top.outer))
            } else if text.hasPrefix("#endif") {
                _ = stack.popLast()
            }
            result.append(stack.last?.branch ?? [])
        }
        return result
    }

    private static func requiredCompiler(_ condition: String) -> [Int]? {
        guard let range = condition.range(of: #"compiler\(\s*>=\s*[0-9.]+\s*\)"#, options: .regularExpression) else { return nil }
        let digits = condition[range].drop { !$0.isNumber }.prefix { $0.isNumber || $0 == "." }
        return digits.split(separator: ".").compactMap { Int($0) }
    }
}

private func max(_ a: [Int], _ b: [Int]) -> [Int] { a.lexicographicallyPrecedes(b) ? b : a }
