#if canImport(XCTest) && canImport(Darwin)
import XCTest

extension XCTestCase {
    /// Records a failure at `location` as an `XCTIssue` (Xcode's XCTest; `recordFailure` is deprecated there).
    func recordLeakCheckFailure(_ message: String, at location: CallerLocation) {
        record(XCTIssue(
            type: .assertionFailure, compactDescription: message,
            sourceCodeContext: XCTSourceCodeContext(
                location: XCTSourceCodeLocation(filePath: location.filePath, lineNumber: location.line))))
    }
}
#endif
