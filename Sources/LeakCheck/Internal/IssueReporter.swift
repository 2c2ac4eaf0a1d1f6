import Foundation
#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// Records a failure or a warning at the caller's location, in whichever test framework is
/// running: Swift Testing when there is a current test, else the XCTest case that made the
/// check, else standard error (a check outside any test).
enum IssueReporter {
    enum Severity { case warning, error }

    static func record(_ message: String, severity: Severity, at location: CallerLocation, in testCase: AnyObject? = nil) {
        #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                severity: severity == .error ? .error : .warning,
                sourceLocation: SourceLocation(
                    fileID: location.fileID, filePath: location.filePath,
                    line: location.line, column: location.column))
            return
        }
        #endif
        switch severity {
        case .error:
            recordXCTestFailure(message, at: location, in: testCase)
        case .warning:
            FileHandle.standardError.write(Data("\(location.filePath):\(location.line): warning: \(message)\n".utf8))
        }
    }

    private static func recordXCTestFailure(_ message: String, at location: CallerLocation, in testCase: AnyObject?) {
        #if canImport(XCTest)
        if let testCase = testCase as? XCTestCase {
            #if os(Linux) || os(Windows)
            testCase.recordFailure(
                withDescription: message, inFile: location.filePath, atLine: location.line, expected: true)
            #else
            testCase.record(XCTIssue(
                type: .assertionFailure, compactDescription: message,
                sourceCodeContext: XCTSourceCodeContext(
                    location: XCTSourceCodeLocation(filePath: location.filePath, lineNumber: location.line))))
            #endif
            return
        }
        #endif
        FileHandle.standardError.write(Data("\(location.filePath):\(location.line): error: \(message)\n".utf8))
    }
}
