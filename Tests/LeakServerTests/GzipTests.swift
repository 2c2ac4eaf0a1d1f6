import Foundation
import GzipCoding
import Testing

@Suite struct GzipTests {
    let text = Data(String(repeating: "leakhistory ", count: 10_000).utf8)

    @Test func roundTrips() throws {
        let compressed = try Gzip.compress(text)
        #expect(compressed.count < text.count / 10)
        #expect(compressed.prefix(2) == Data([0x1F, 0x8B]), "a gzip header")
        #expect(try Gzip.inflate(compressed, limit: text.count) == text)
        #expect(try Gzip.inflate(try Gzip.compress(Data()), limit: 0) == Data())
    }

    @Test func refusesToGrowPastTheLimit() throws {
        let bomb = try Gzip.compress(Data(count: 4 * 1024 * 1024))
        #expect(throws: Gzip.Failure.tooLarge(limit: 1024)) { try Gzip.inflate(bomb, limit: 1024) }
    }

    @Test func namesCorruptAndTruncatedStreams() throws {
        #expect(throws: Gzip.Failure.self) { try Gzip.inflate(text, limit: .max) }
        let compressed = try Gzip.compress(text)
        do {
            _ = try Gzip.inflate(compressed.prefix(compressed.count / 2), limit: .max)
            Issue.record("a truncated stream must not inflate")
        } catch {
            #expect(error == .corrupt("the gzip stream ends early"))
        }
    }
}
