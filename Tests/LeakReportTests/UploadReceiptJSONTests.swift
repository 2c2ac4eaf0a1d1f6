import Foundation
import Testing
@testable import LeakReport

/// `UploadReceipt.json()` writes what the server's `JSONEncoder` would.
@Suite struct UploadReceiptJSONTests {
    @Test func writesWhatTheEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var random = SplitMix64(seed: 0x5EC_E197)
        let receipts = [UploadReceipt(runID: 0, created: false, checks: 0, leaked: 0, lateRelease: 0, errors: 0, suspect: false),
                        UploadReceipt(runID: .max, created: true, checks: .max, leaked: .min, lateRelease: -1, errors: 7,
                                      suspect: true)]
            + (0..<200).map { _ in
                UploadReceipt(runID: Int64(random.next(below: 1 << 40)), created: random.chance(0.5),
                              checks: Int(random.next(below: 100_000)), leaked: Int(random.next(below: 1_000)),
                              lateRelease: Int(random.next(below: 100)), errors: Int(random.next(below: 10)),
                              suspect: random.chance(0.5))
            }
        for receipt in receipts {
            #expect(String(decoding: receipt.json(), as: UTF8.self) == String(decoding: try encoder.encode(receipt), as: UTF8.self))
        }
    }
}
