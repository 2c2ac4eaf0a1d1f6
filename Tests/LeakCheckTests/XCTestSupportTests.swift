import Foundation
import LeakReport
import XCTest
@testable import LeakCheck
@testable import LeakRuntime

/// An XCTestCase that keeps the failures recorded on it instead of failing, so that tests can
/// check LeakCheck's failures. (Linux's XCTest has no XCTExpectFailure.)
class FailureRecordingTestCase: XCTestCase {
    struct Failure {
        var description: String
        var file: String
        var line: Int
    }

    var failures: [Failure] = []
    /// When false, failures pass through to XCTest as usual.
    var capturesFailures = true

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        if capturesFailures {
            failures.append(Failure(description: description, file: filePath, line: lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }
}

final class XCTestSupportTests: FailureRecordingTestCase, DeallocationCheckConfiguring {
    var deallocationTimeouts: DeallocationTimeouts { DeallocationTimeouts(timeout: .milliseconds(40), gracePeriod: .zero) }

    private var keeper = Parent(childCount: 0)
    private var expectedTrackFailureLine: Int?

    override func tearDown() {
        // Tear-down blocks (trackForDeallocation's checks) have run by now.
        if let line = expectedTrackFailureLine {
            capturesFailures = false
            XCTAssertEqual(failures.map(\.line), [line])
            XCTAssertTrue(failures.first?.description.contains("LeakCheckTests.Child was not deallocated") ?? false)
            XCTAssertTrue(failures.first?.file.hasSuffix("XCTestSupportTests.swift") ?? false)
        }
        super.tearDown()
    }

    func testAsyncCleanObjectPasses() async {
        let records = await capturingRecords {
            await expectDeallocation { CleanObject() }
        }
        XCTAssertTrue(failures.isEmpty)
        XCTAssertEqual(records.map(\.outcome), [.deallocated])
        XCTAssertEqual(records.first?.scenario, "XCTestSupportTests/testAsyncCleanObjectPasses()")
        XCTAssertEqual(records.first?.timeoutMs, 40, "the test case's DeallocationCheckConfiguring sets the timeout")
    }

    func testAsyncLeakFailsAtTheCallersLine() async {
        let line = #line + 1
        await expectDeallocation { SelfCapturingClosure() }
        XCTAssertEqual(failures.map(\.line), [line])
        XCTAssertTrue(failures.first?.file.hasSuffix("XCTestSupportTests.swift") ?? false)
        XCTAssertTrue(failures.first?.description.contains("LeakCheckTests.SelfCapturingClosure was not deallocated") ?? false)
    }

    func testSynchronousFormPassesAndFails() {
        assertDeallocation { CleanObject() }
        XCTAssertTrue(failures.isEmpty)

        let line = #line + 1
        assertDeallocation(timeout: .milliseconds(20)) { StrongDelegateOwner() }
        XCTAssertEqual(failures.map(\.line), [line])
    }

    func testSynchronousFormPumpsTheRunLoop() {
        // Released by a block on the main queue, which only runs while the main run loop runs:
        // a wait that did not pump it would see a leak.
        XCTAssertTrue(Thread.isMainThread)
        let line = #line + 1
        assertDeallocation(timeout: .seconds(2)) { () -> CleanObject in
            let object = CleanObject()
            let box = UncheckedBox(object)
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.03) { withExtendedLifetime(box) {} }
            return object
        }
        XCTAssertTrue(failures.isEmpty, "failures at line \(line): \(failures.map(\.description))")
    }

    func testTrackedCleanObjectPassesAtTearDown() {
        let sut = trackForDeallocation(CleanObject())
        _ = sut
    }

    func testTrackedLeakFailsAtTearDown() {
        expectedTrackFailureLine = #line + 1
        let child = trackForDeallocation(Child())
        keeper.children.append(child)
    }

    func testAsyncLeakIsConfirmedInEveryAttempt() async {
        let factory = SometimesHeld()
        let records = await capturingRecords {
            await expectDeallocation(attempts: 3) { factory.make() }
        }
        XCTAssertEqual(factory.made, 3)
        XCTAssertEqual(failures.count, 1, "one failure for the check, not one per attempt")
        XCTAssertTrue(failures.first?.description.contains("It leaked in 3 of 3 attempts: confirmed") ?? false)
        XCTAssertEqual(records.map(\.outcome), [.leaked])
        XCTAssertEqual(records.first?.attempts, 3)
        XCTAssertEqual(records.first?.leakedAttempts, 3)
    }

    /// The synchronous form confirms too; the object a queued block releases makes its leak
    /// intermittent. (A grace period long enough for the release on a loaded machine.)
    func testSynchronousFormReportsAnIntermittentLeak() {
        let factory = SometimesHeld(released: [2])
        let capture = CheckCapture()
        let line = #line + 2
        ReportSink.$capture.withValue(capture) {
            assertDeallocation(timeout: .milliseconds(100), gracePeriod: .seconds(2), attempts: 3) { factory.make() }
        }
        XCTAssertEqual(factory.made, 3)
        XCTAssertEqual(failures.map(\.line), [line])
        XCTAssertTrue(failures.first?.description.contains("It leaked in 2 of 3 attempts: intermittent") ?? false,
                      "\(failures.map(\.description))")
        XCTAssertEqual(capture.all.map(\.outcome), [.leaked])
        XCTAssertEqual(capture.all.first?.attempts, 3)
        XCTAssertEqual(capture.all.first?.leakedAttempts, 2)
    }

    /// Xcode's XCTest declares `addTeardownBlock` for `@Sendable @MainActor () -> Void` and for
    /// `@Sendable () async throws -> Void`; the tracking block must be the synchronous one there,
    /// which pumps the main run loop. Declared here with those shapes, since Linux's differ.
    func testTheTearDownBlockTakesXcodesSynchronousOverload() {
        final class XcodeShapedTearDowns {
            var taken: [String] = []
            func addTeardownBlock(_ block: @escaping @Sendable @MainActor () -> Void) { taken.append("sync") }
            func addTeardownBlock(_ block: @escaping @Sendable () async throws -> Void) { taken.append("async") }
        }
        let tearDowns = XcodeShapedTearDowns()
        let context = CheckContext(
            location: CallerLocation(fileID: "A/B.swift", filePath: "/A/B.swift", line: 1, column: 1), timeouts: DeallocationTimeouts())
        tearDowns.addTeardownBlock(deallocationTeardown(WeakReference(CleanObject()), context: context))
        XCTAssertEqual(tearDowns.taken, ["sync"])
    }

    func testGroupInXCTest() async {
        await expectDeallocation { () -> [AnyObject] in [CleanObject(), Loader()] }
        XCTAssertTrue(failures.isEmpty)
    }
}

/// A test case's `DeallocationCheckConfiguring` sets its checks' attempts.
final class XCTestAttemptsConfiguringTests: FailureRecordingTestCase, DeallocationCheckConfiguring {
    var deallocationTimeouts: DeallocationTimeouts { DeallocationTimeouts(timeout: .milliseconds(30), gracePeriod: .zero) }
    var deallocationAttempts: Int? { 2 }

    func testTheTestCaseSetsTheAttempts() async {
        let factory = SometimesHeld()
        let records = await capturingRecords {
            await expectDeallocation { factory.make() }
        }
        XCTAssertEqual(factory.made, 2)
        XCTAssertEqual(records.first?.attempts, 2)
        XCTAssertEqual(failures.count, 1)
    }
}
