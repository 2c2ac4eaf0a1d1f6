import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// The compact layout (migration 6) answers every query exactly as the layout that stored every
/// check did: `Golden/answers-before-compact.txt` holds the answers the full-row layout gave for
/// `AnswerHistory`'s uploads (recorded with the code before migration 6), and the same uploads
/// must give the same text now, on every engine. Re-record only when a query's rules change on
/// purpose: `LEAKHISTORY_RECORD_ANSWERS=1 swift test --filter CompactStorage`.
@Suite("Compact storage")
struct CompactStorageTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden/answers-before-compact.txt")

    @Test(arguments: TestEngine.all)
    func everyAnswerIsTheOneTheFullRowLayoutGave(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        let history = AnswerHistory()
        try history.upload(into: store)
        let answers = try history.answers(store)
        if ProcessInfo.processInfo.environment["LEAKHISTORY_RECORD_ANSWERS"] != nil, engine == .sqlite {
            try FileManager.default.createDirectory(at: Self.golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try answers.write(to: Self.golden, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: Self.golden, encoding: .utf8)
        #expect(Self.firstDifference(expected, answers) == nil)
    }

    /// The first question whose answer differs, with both answers; nil when the texts are equal.
    static func firstDifference(_ expected: String, _ found: String) -> String? {
        guard expected != found else { return nil }
        let want = expected.components(separatedBy: "\n## "), got = found.components(separatedBy: "\n## ")
        for (index, block) in want.enumerated() where index >= got.count || got[index] != block {
            return "expected:\n\(block.prefix(3_000))\n\nfound:\n\(index < got.count ? String(got[index].prefix(3_000)) : "nothing")"
        }
        return "found \(got.count - want.count) more answers than expected"
    }
}
