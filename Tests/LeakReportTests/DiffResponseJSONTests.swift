import Foundation
import Testing
@testable import LeakReport

/// `DiffResponse.json()` writes what the server's `JSONEncoder` would: every member, absent or
/// present, every category, every character a string can hold.
@Suite struct DiffResponseJSONTests {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Every ASCII character (the control ones, quotes, backslash, slash), then characters beyond.
    private static let everyCharacter = String(String.UnicodeScalarView((0..<0x80).map { Unicode.Scalar(UInt8($0)) }))
        + "é\u{7F}\u{2028}\u{2029}\u{FEFF}😀"

    private static let strings = ["", "App.Model7", "Tests/AppTests/ProfileTests.swift", "ProfileTests/open()", "a\"b\\c/d",
                                  "line\nbreak\ttab", "\u{0}\u{1F}", "naïve — ✓", everyCharacter]

    private static func response(_ random: inout SplitMix64) -> DiffResponse {
        func string() -> String { strings[Int(random.next(below: UInt64(strings.count)))] }
        func maybe<T>(_ value: () -> T) -> T? { random.chance(0.5) ? value() : nil }
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        let entries = (0..<Int(random.next(below: 12))).map { _ in
            LeakDiff.Entry(
                category: LeakDiff.Category.allCases[Int(random.next(below: UInt64(LeakDiff.Category.allCases.count)))],
                scenario: string(), type: string(), file: string(), line: Int(random.next(below: 100_000)) - 5,
                fingerprint: maybe(string),
                retainPath: maybe { (0..<Int(random.next(below: 3))).map { _ in
                    RetainPathStep(holder: string(), property: string(), kind: random.chance(0.5) ? .strong : .collection)
                } },
                message: maybe(string), firstSeen: maybe(string), suppressedBecause: maybe(string),
                suppression: maybe {
                    LeakDiff.SuppressionNote(LeakSuppression(
                        id: maybe { Int(random.next(below: 1_000)) }, reason: string(),
                        expiresAt: maybe { now.addingTimeInterval(random.chance(0.5) ? 86_400 : -86_400) },
                        createdBy: maybe(string)), now: now)
                },
                inheritedFrom: maybe(string), baseStateFrom: maybe(string),
                evidence: maybe {
                    GateEvidence(confirmedAtHead: random.chance(0.5), headRuns: 2, headLeakedRuns: 1, headAttempts: 6,
                                 headLeakedAttempts: 4, recentRuns: Int(random.next(below: 500)), recentLeakedRuns: 7,
                                 commitsLookedAt: 400, sinceChange: maybe { Int(random.next(below: 400)) },
                                 otherEnvironments: maybe {
                                     (0..<1 + Int(random.next(below: 2))).map { _ in
                                         .init(environment: string(), countedAttempts: 1 + Int(random.next(below: 2)),
                                               recentRuns: Int(random.next(below: 500)), recentLeakedRuns: 3)
                                     }
                                 },
                                 summary: string())
                })
        }
        let suspectRuns = maybe {
            (0..<Int(random.next(below: 3))).map { _ in
                DiffResponse.SuspectRun(runID: Int64(random.next(below: 1 << 40)), checks: 308, leaked: 300, errors: 8)
            }
        }
        return DiffResponse(project: string(), environment: string(),
                            base: maybe { DiffResponse.Side(commit: string(), runs: 2) },
                            head: DiffResponse.Side(commit: string(), runs: Int(random.next(below: 4)), suspectRuns: suspectRuns),
                            diff: LeakDiff(entries: entries))
    }

    @Test func writesTheEncodersBytes() throws {
        var random = SplitMix64(seed: 15)
        for _ in 0..<500 {
            let response = Self.response(&random)
            let expected = try Self.encoder.encode(response)
            #expect(response.json() == expected, "\(String(decoding: expected, as: UTF8.self))")
        }
    }
}
