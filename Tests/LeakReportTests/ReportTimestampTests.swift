import Foundation
import LeakReport
import Testing

/// The hand-written formatter and parser of `ReportTimestamp` against Foundation's ISO 8601 style.
@Suite("ReportTimestamp")
struct ReportTimestampTests {
    @Test func formattingAndParsingAgreeWithFoundationOverManyDates() throws {
        var random = SystemRandomNumberGenerator()
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        // From 1900 to 2200, to the millisecond, leap days and year ends included by chance.
        for _ in 0..<20_000 {
            let ms = Int64.random(in: -2_208_988_800_000...7_258_118_400_000, using: &random)
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            let text = ReportTimestamp.string(from: date)
            // Foundation truncates to the millisecond, and `ms / 1000` may land a hair below it.
            #expect(text == Date(timeIntervalSince1970: Double(ms) / 1000 + 0.0001).formatted(style), "\(ms)")
            let foundation = try Date(text, strategy: style)
            #expect(ReportTimestamp.date(from: text) == ReportTimestamp.normalized(foundation), "\(text)")
        }
    }

    /// A day or time that does not exist is refused, in any form: Foundation would roll it
    /// over (30 February to 2 March, "4908-11-31" to 1 December, 24:00 to the next day).
    @Test(arguments: ["2026-02-30T00:00:00.000Z", "2025-02-29T00:00:00Z", "2026-11-30T24:00:00Z",
                      "4908-11-31T00:00:00Z", "4908-11-31T00:00:00+01:00", "2026-11-30T12:60:00.5+01:00"])
    func refusesDatesThatDoNotExist(text: String) {
        #expect(ReportTimestamp.date(from: text) == nil)
    }

    /// Whatever the fast path does not take (an offset; a malformed time) is Foundation's to
    /// answer, as before.
    @Test(arguments: ["2024-02-29T12:00:00Z", "2000-02-29T00:00:00.000Z", "2026-12-31T23:59:59.999Z",
                      "2026-13-01T00:00:00Z", "2026-11-30T02:10:57.12aZ", "2026-11-30 02:10:57.123Z",
                      "2026-11-30T03:10:57.5+01:00", "not a time"])
    func answersAsFoundationDoes(text: String) {
        let foundation = (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        #expect(ReportTimestamp.date(from: text) == foundation.map(ReportTimestamp.normalized))
    }
}
