import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// The compact layout (migration 6) answers every query exactly as the layout that stored every
/// check did. `Golden/answers-before-compact.txt` holds the SHA-256 of each answer the full-row
/// layout gave for `AnswerHistory`'s uploads (recorded with the code before migration 6); the same
/// uploads must give the same answers now, on every engine. Re-record only when a query's rules
/// change on purpose: `LEAKHISTORY_RECORD_ANSWERS=1 swift test --filter "Compact storage"`.
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
            let header = try String(contentsOf: Self.golden, encoding: .utf8).split(separator: "\n").prefix { $0.hasPrefix("#") }
            let lines = header.map(String.init) + answers.map { "\(SHA256.hex($0.answer))  \($0.question)" }
            try (lines.joined(separator: "\n") + "\n").write(to: Self.golden, atomically: true, encoding: .utf8)
        }
        let difference = try Self.firstDifference(answers)
        #expect(difference == nil, "\(difference ?? "")")
    }

    /// A writer keeps at most `StoreOptions.internedLimit` interned ids between transactions; one
    /// that must start afresh at nearly every transaction (a run interns more than four ids), also
    /// between the slices of a run stored in slices, stores what gives the same answers.
    @Test(arguments: TestEngine.all, [2_000, 16])
    func aWriterPastItsInternedLimitGivesTheSameAnswers(_ engine: TestEngine, sliceChecks: Int) throws {
        let database = try TestDatabase(engine)
        let store = try database.open(StoreOptions(ingestSliceChecks: sliceChecks, internedLimit: 4))
        let history = AnswerHistory()
        try history.upload(into: store)
        let difference = try Self.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")
    }

    /// The first question whose answer's digest differs from the recorded one, with the answer
    /// given now; nil when every answer matches.
    static func firstDifference(_ answers: [(question: String, answer: String)]) throws -> String? {
        let recorded = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { line -> (String, String) in
                let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
                return (String(parts[1...].joined(separator: " ")), String(parts[0]))
            }
        guard recorded.count == answers.count else {
            return "recorded \(recorded.count) answers, found \(answers.count)"
        }
        for ((question, digest), found) in zip(recorded, answers) where question != found.question || digest != SHA256.hex(found.answer) {
            return "\(found.question): the answer differs from the recorded one; now:\n\(found.answer.prefix(4_000))"
        }
        return nil
    }
}
