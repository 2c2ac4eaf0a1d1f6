import Foundation
import LeakReport
import Testing
import XCTest
@testable import LeakCheck
@testable import LeakRuntime

/// Runs `body` and returns the issues it recorded, keeping them from the test: how these tests
/// see an issue's severity and text.
func recordingIssues(_ body: @Sendable () async -> Void) async -> [Issue] {
    let issues = Locked<[Issue]>([])
    let collector = IssueHandlingTrait.compactMapIssues { issue in
        issues.withLock { $0.append(issue) }
        return nil
    }
    try? await collector.provideScope(for: Test.current!, testCase: Test.Case.current, performing: body)
    return issues.withLock { $0 }
}

@Suite struct ReportOnlyModeTests {
    @Test func environmentValues() {
        #expect(ReportOnlyMode.isOn(in: [:]) == false)
        #expect(ReportOnlyMode.isOn(in: ["LEAKHISTORY_REPORT_ONLY": "1"]) == true)
        #expect(ReportOnlyMode.isOn(in: ["LEAKHISTORY_REPORT_ONLY": " TRUE "]) == true)
        #expect(ReportOnlyMode.isOn(in: ["LEAKHISTORY_REPORT_ONLY": "0"]) == false)
        #expect(ReportOnlyMode.isOn(in: ["LEAKHISTORY_REPORT_ONLY": ""]) == false)
        #expect(ReportOnlyMode.isOn(in: ["LEAKHISTORY_REPORT_ONLY": "maybe"]) == nil)
    }

    /// No wrapper: had the leak been recorded as an error, this test would fail.
    @Test func leakDoesNotFailTheTest() async {
        let records = await ReportOnlyMode.$override.withValue(true) {
            await capturingRecords {
                await expectDeallocation(timeout: short, gracePeriod: .zero) { SelfCapturingClosure() }
            }
        }
        #expect(records.map(\.outcome) == [.leaked], "the report line says the check leaked either way")
        #expect(records.first?.knownIssue == nil)
        #expect(records.first?.fingerprint?.count == 16)
    }

    @Test func leakIsAWarningThatNamesTheGate() async {
        let line = #line + 3
        let issues = await recordingIssues {
            await ReportOnlyMode.$override.withValue(true) {
                await expectDeallocation(timeout: short, gracePeriod: .zero) { StrongDelegateOwner() }
            }
        }
        #expect(issues.count == 1)
        let issue = try! #require(issues.first)
        #expect(issue.severity == .warning)
        #expect(issue.sourceLocation?.line == line)
        #expect("\(issue)".contains("StrongDelegateOwner was not deallocated"))
        #expect("\(issue)".contains("Report-only (LEAKHISTORY_REPORT_ONLY=1)"))
        #expect("\(issue)".contains("`leakhistory check` is the gate"))
    }

    @Test func withoutTheModeALeakIsAnError() async {
        let issues = await recordingIssues {
            await ReportOnlyMode.$override.withValue(false) {
                await expectDeallocation(timeout: short, gracePeriod: .zero) { StrongDelegateOwner() }
            }
        }
        #expect(issues.map(\.severity) == [.error])
        #expect(!"\(issues)".contains("Report-only"))
    }

    /// A lifecycle that throws is a broken test, not a leak: it fails in either mode.
    @Test func lifecycleErrorStillFails() async {
        let issues = await recordingIssues {
            await ReportOnlyMode.$override.withValue(true) {
                await expectDeallocation(.custom { loader in try await loader.fail() }) { Loader() }
            }
        }
        #expect(issues.map(\.severity) == [.error])
        #expect("\(issues)".contains("lifecycle of LeakCheckTests.Loader threw"))
    }

    @Test func trackedLeakAtTheTraitsEndIsAWarning() async {
        let issues = await recordingIssues {
            await ReportOnlyMode.$override.withValue(true) {
                let tracker = DeallocationTracker()
                DeallocationTracker.$current.withValue(tracker) {
                    _ = trackForDeallocation(SelfCapturingClosure(), timeout: short, gracePeriod: .zero)
                }
                await tracker.verifyAll()
            }
        }
        #expect(issues.map(\.severity) == [.warning])
    }
}

@Suite struct KnownIssueRecordingTests {
    @Test func leakInsideWithKnownIssueIsRecordedAsKnown() async {
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: short, gracePeriod: .zero) { SelfCapturingClosure() }
            }
        }
        #expect(records.map(\.outcome) == [.leaked])
        #expect(records.first?.knownIssue == true)
    }

    @Test func groupLeakInsideWithKnownIssueMarksOnlyTheSurvivors() async {
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: short, gracePeriod: .zero) { () -> [AnyObject] in
                    [CleanObject(), Parent(childCount: 1)]
                }
            }
        }
        #expect(records.map(\.outcome) == [.deallocated, .leaked])
        #expect(records.map(\.knownIssue) == [nil, true])
    }

    /// A matcher that does not take the leak leaves it a plain leak (here kept from failing the
    /// test by the outer collector).
    @Test func leakNotMatchedByTheKnownIssueIsNotKnown() async {
        let records = Locked<[CheckRecord]>([])
        let issues = await recordingIssues {
            let captured = await capturingRecords {
                await withKnownIssue(isIntermittent: true) {
                    await expectDeallocation(timeout: short, gracePeriod: .zero) { SelfCapturingClosure() }
                } matching: { issue in
                    "\(issue)".contains("something else")
                }
            }
            records.withLock { $0 = captured }
        }
        #expect(issues.map(\.severity) == [.error])
        #expect(records.withLock { $0.map(\.knownIssue) } == [nil])
    }

    @Test func knownLeakInReportOnlyModeIsStillKnown() async {
        let records = await ReportOnlyMode.$override.withValue(true) {
            await capturingRecords {
                await withKnownIssue {
                    await expectDeallocation(timeout: short, gracePeriod: .zero) { SelfCapturingClosure() }
                }
            }
        }
        #expect(records.map(\.knownIssue) == [true])
    }
}

/// XCTest under report-only mode: a leak prints a warning instead of recording a failure.
final class ReportOnlyModeXCTests: FailureRecordingTestCase {
    func testAsyncLeakIsNotAFailure() async {
        let records = await ReportOnlyMode.$override.withValue(true) {
            await capturingRecords {
                await expectDeallocation(timeout: .milliseconds(20), gracePeriod: .zero) { SelfCapturingClosure() }
            }
        }
        XCTAssertTrue(failures.isEmpty, "\(failures.map(\.description))")
        XCTAssertEqual(records.map(\.outcome), [.leaked])
    }

    func testSynchronousLeakIsNotAFailure() {
        let capture = CheckCapture()
        ReportOnlyMode.$override.withValue(true) {
            ReportSink.$capture.withValue(capture) {
                assertDeallocation(timeout: .milliseconds(20), gracePeriod: .zero) { StrongDelegateOwner() }
            }
        }
        XCTAssertTrue(failures.isEmpty, "\(failures.map(\.description))")
        XCTAssertEqual(capture.all.map(\.outcome), [.leaked])
    }

    func testWithoutTheModeALeakFails() {
        ReportOnlyMode.$override.withValue(false) {
            assertDeallocation(timeout: .milliseconds(20), gracePeriod: .zero) { StrongDelegateOwner() }
        }
        XCTAssertEqual(failures.count, 1)
    }

    func testLifecycleErrorStillFails() async {
        await ReportOnlyMode.$override.withValue(true) {
            await expectDeallocation(.custom { loader in try await loader.fail() }) { Loader() }
        }
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures.first?.description.contains("threw") ?? false)
    }
}
