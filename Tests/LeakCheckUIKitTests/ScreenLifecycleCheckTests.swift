import LeakReport
import Testing
@testable import LeakCheck
@testable import LeakRuntime
@testable import LeakCheckUIKit
@testable import LeakRuntimeUIKit

/// The view-controller lifecycles as users meet them, through `expectDeallocation`, with the
/// fake host standing in for UIKit: the engine's errors are check errors, never leaks.
@MainActor @Suite struct ScreenLifecycleCheckTests {
    func records(_ body: () async -> Void) async -> [CheckRecord] {
        let capture = CheckCapture()
        await ReportSink.$capture.withValue(capture) { await body() }
        return capture.all
    }

    func fake<Object: AnyObject>(
        _ presentation: ScreenPresentation, host: FakeScreenHost<Object>, timeout: Duration = .seconds(10),
        interaction: (@MainActor (Object) async throws -> Void)? = nil
    ) -> DeallocationLifecycle<Object> {
        .screen(presentation, timeout: timeout, host: { host }, screen: { $0 }, interaction: interaction)
    }

    @Test func aCleanScreenPassesUnderItsLifecycleName() async {
        let host = FakeScreenHost<FakeScreen>(showTurns: 2, hideTurns: 2)
        let records = await records {
            // A minute to go down, not 10 s: in the whole suite's process on two busy cores the main
            // actor's turns can wait that long, and this test is about the clean pass, not the timeout.
            await expectDeallocation(fake(.push, host: host, timeout: .seconds(60)) { screen in screen.interactions += 1 }) {
                FakeScreen()
            }
        }
        #expect(records.map(\.outcome) == [.deallocated])
        #expect(records.map(\.lifecycle) == ["push"])
        #expect(host.log.last == "tearDown")
    }

    @Test func aLeakingScreenIsALeakAtTheCallersLine() async {
        let host = FakeScreenHost<LeakyFakeScreen>()
        let records = await records {
            let line = #line + 2
            await withKnownIssue {
                await expectDeallocation(fake(.present, host: host), timeout: .milliseconds(20), gracePeriod: .zero) { LeakyFakeScreen() }
            } matching: { issue in
                issue.sourceLocation?.line == line && "\(issue)".contains("LeakyFakeScreen was not deallocated")
            }
        }
        #expect(records.map(\.outcome) == [.leaked])
        #expect(records.first?.lifecycle == "present")
    }

    @Test func aScreenThatNeverAppearsIsAnErrorNotALeak() async {
        let host = FakeScreenHost<FakeScreen>(showTurns: nil)
        let records = await records {
            await withKnownIssue {
                await expectDeallocation(fake(.present, host: host, timeout: .milliseconds(30))) { FakeScreen() }
            } matching: { issue in
                "\(issue)".contains("The present lifecycle of LeakCheckUIKitTests.FakeScreen threw: FakeScreen was not on screen")
            }
        }
        #expect(records.map(\.outcome) == [.error])
        #expect(records.first?.message?.contains("viewDidAppear never came") == true)
    }

    @Test func anInteractionThatThrowsIsAnErrorNotALeak() async {
        let host = FakeScreenHost<FakeScreen>()
        let records = await records {
            await withKnownIssue {
                await expectDeallocation(fake(.present, host: host) { _ in throw InteractionError() }) { FakeScreen() }
            } matching: { issue in
                "\(issue)".contains("threw: LeakCheckUIKitTests.InteractionError()")
            }
        }
        #expect(records.map(\.outcome) == [.error])
        #expect(host.log == ["prepare(present)", "window", "show(present)", "up", "hide(present)", "down", "tearDown"])
    }
}
