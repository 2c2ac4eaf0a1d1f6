import Foundation
@testable import LeakStore
import Testing

/// `docs/STORAGE.md` is the map of the store: its schema blocks must be what a freshly migrated
/// database of each engine holds, and every table and view in them must be described.
@Suite("docs/STORAGE.md")
struct StorageDocumentTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/STORAGE.md").standardized

    /// The fenced block after `<!-- schema: <engine> -->`.
    static func block(_ engine: TestEngine, in text: String) throws -> String {
        let marker = "<!-- schema: \(engine.rawValue) -->"
        let after = try #require(text.range(of: marker), "docs/STORAGE.md has no \(marker) line").upperBound
        let fence = try #require(text.range(of: "```text\n", range: after..<text.endIndex),
                                 "docs/STORAGE.md: no ```text block after \(marker)")
        let end = try #require(text.range(of: "```", range: fence.upperBound..<text.endIndex))
        return String(text[fence.upperBound..<end.lowerBound])
    }

    @Test(arguments: TestEngine.all)
    func theSchemaBlockIsWhatAFreshDatabaseHolds(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        let live = try store.read { try SchemaMap.render($0, engine: engine) }
        let written = try Self.block(engine, in: String(contentsOf: Self.document, encoding: .utf8))
        guard written != live else { return }
        // The text to paste, beside the package's other build products.
        let copy = Self.document.deletingLastPathComponent()
            .appendingPathComponent("../.build/storage-schema-\(engine.rawValue).txt").standardized
        try? live.write(to: copy, atomically: true, encoding: .utf8)
        Issue.record("""
            docs/STORAGE.md's \(engine.rawValue) schema is not what the migrations make. Put the text of \
            \(copy.path) in its block, and say in the document what changed:
            \(live)
            """)
    }

    @Test func everyTableAndViewIsDescribed() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let section = try #require(text.range(of: "## What each table holds"), "docs/STORAGE.md has no 'What each table holds'")
        let rest = text[section.upperBound...]
        let described = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        var names: Set<String> = []
        for engine in TestEngine.allCases {
            for line in try Self.block(engine, in: text).split(separator: "\n") where !line.hasPrefix(" ") {
                names.insert(String(line.split(separator: " ").drop { $0 == "table" || $0 == "view" || $0 == "virtual" }.first ?? ""))
            }
        }
        for name in names.sorted() {
            #expect(described.contains("`\(name)`"), "docs/STORAGE.md does not say what `\(name)` holds")
        }
    }
}
