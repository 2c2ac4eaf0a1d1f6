import Foundation
import Testing
@testable import LeakReport

/// `TrendResponse.json()` writes what the server's `JSONEncoder` would.
@Suite struct TrendResponseJSONTests {
    @Test func writesWhatTheEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var random = SplitMix64(seed: 0x7E_4D)
        // Names with what JSON escapes, slashes it need not, and text beyond ASCII.
        let names = ["App.Model", "Cache<\"Key\">", "a\\b/c", "tab\there\nline\u{1}\u{1F}", "Überprüfung 🚀", ""]
        func point() -> TrendResponse.Point {
            TrendResponse.Point(
                commit: String(random.next(below: 1 << 40), radix: 16), at: "2026-12-05T17:0\(random.next(below: 10)):00Z",
                leakedKeys: Int(random.next(below: 300)), checkedKeys: Int(random.next(below: 3_000)),
                scenarios: (0..<random.next(below: 4)).map { _ in names[Int(random.next(below: UInt64(names.count)))] },
                fingerprints: (0..<random.next(below: 3)).map { _ in names[Int(random.next(below: UInt64(names.count)))] })
        }
        let responses = [TrendResponse(type: "", branch: "", environment: nil, points: []),
                         TrendResponse(type: names[1], branch: "feature/x", environment: "linux", points: [point()])]
            + (0..<50).map { index in
                TrendResponse(type: names[index % names.count], branch: names[(index + 1) % names.count],
                              environment: index % 3 == 0 ? nil : names[index % names.count],
                              points: (0..<random.next(below: 40)).map { _ in point() })
            }
        for response in responses {
            #expect(String(decoding: response.json(), as: UTF8.self) == String(decoding: try encoder.encode(response), as: UTF8.self))
        }
    }
}
