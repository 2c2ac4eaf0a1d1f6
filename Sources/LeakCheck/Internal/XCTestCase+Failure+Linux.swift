#if canImport(XCTest) && !canImport(Darwin)
import XCTest

extension XCTestCase {
    /// Records a failure at `location` (swift-corelibs-xctest has no `XCTIssue`).
    func recordLeakCheckFailure(_ message: String, at location: CallerLocation) {
        recordFailure(withDescription: message, inFile: location.filePath, atLine: location.line, expected: true)
    }
}
#endif
