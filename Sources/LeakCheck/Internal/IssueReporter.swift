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
///
/// Swift Testing's warnings and issue handlers need Swift 6.3 (`Issue.record(_:severity:…)`,
/// `Issue.isFailure`, `IssueHandlingTrait` in 6.2); the package's floor is Swift 6.1. Below 6.3 a
/// warning goes to standard error, a leak is always an error (a warning on standard error in
/// report-only mode) and never counted as known. `make portable` compiles that fallback here
/// (`LEAKHISTORY_PORTABLE_CHECK`), and `ToolchainFloorTests` finds newer APIs left unguarded.
enum IssueReporter {
    enum Severity { case warning, error }

    static func record(_ message: String, severity: Severity, at location: CallerLocation, in testCase: AnyObject? = nil) {
        #if canImport(Testing)
        if Test.current != nil {
            let sourceLocation = SourceLocation(
                fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
            #if compiler(>=6.3) && !LEAKHISTORY_PORTABLE_CHECK
            Issue.record(Comment(rawValue: message), severity: severity == .error ? .error : .warning, sourceLocation: sourceLocation)
            return
            #else
            if severity == .error {
                Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
                return
            }
            #endif
        }
        #endif
        switch severity {
        case .error:
            recordXCTestFailure(message, at: location, in: testCase)
        case .warning:
            FileHandle.standardError.write(Data("\(location.filePath):\(location.line): warning: \(message)\n".utf8))
        }
    }

    /// Records a leak: a failure, or under `LEAKHISTORY_REPORT_ONLY=1` a warning that says so.
    /// Returns true when Swift Testing took it as a known issue (inside `withKnownIssue`).
    static func recordLeak(
        _ message: String, at location: CallerLocation, in testCase: AnyObject? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async -> Bool {
        #if canImport(Testing) && compiler(>=6.3) && !LEAKHISTORY_PORTABLE_CHECK
        if let test = Test.current {
            return await recordLeakInSwiftTesting(message, at: location, in: test)
        }
        #endif
        recordLeakOutsideSwiftTesting(message, at: location, in: testCase)
        return false
    }

    /// The XCTest (or no test) form of `recordLeak`, for the checks that cannot wait
    /// asynchronously. XCTest has no known issues on every platform, so there is nothing to return.
    static func recordLeakOutsideSwiftTesting(_ message: String, at location: CallerLocation, in testCase: AnyObject?) {
        if ReportOnlyMode.isOn {
            record(LeakMessage.reportOnly(message), severity: .warning, at: location, in: testCase)
        } else {
            record(message, severity: .error, at: location, in: testCase)
        }
    }

    #if canImport(Testing) && compiler(>=6.3) && !LEAKHISTORY_PORTABLE_CHECK
    /// Records the leak as an error under an issue handler of our own: Swift Testing marks an
    /// issue known while recording it (when a `withKnownIssue` matcher takes it), before any
    /// handler sees it, and `Issue.isFailure` is false for a known error. The handler reads that,
    /// then, in report-only mode, lowers the issue to a warning; the user's matcher has already
    /// seen it as the error a leak is.
    private static func recordLeakInSwiftTesting(_ message: String, at location: CallerLocation, in test: Test) async -> Bool {
        let reportOnly = ReportOnlyMode.isOn
        let text = reportOnly ? LeakMessage.reportOnly(message) : message
        let known = Locked(false)
        let handler = IssueHandlingTrait.compactMapIssues { issue in
            known.withLock { $0 = !issue.isFailure }
            guard reportOnly else { return issue }
            var warning = issue
            warning.severity = .warning
            return warning
        }
        let sourceLocation = SourceLocation(
            fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
        do {
            try await handler.provideScope(for: test, testCase: Test.Case.current) {
                Issue.record(Comment(rawValue: text), severity: .error, sourceLocation: sourceLocation)
            }
        } catch {
            // The scope only records an issue, which never throws.
        }
        return known.withLock { $0 }
    }
    #endif

    private static func recordXCTestFailure(_ message: String, at location: CallerLocation, in testCase: AnyObject?) {
        #if canImport(XCTest)
        if let testCase = testCase as? XCTestCase {
            testCase.recordLeakCheckFailure(message, at: location)
            return
        }
        #endif
        FileHandle.standardError.write(Data("\(location.filePath):\(location.line): error: \(message)\n".utf8))
    }
}
