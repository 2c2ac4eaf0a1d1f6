import Testing
@testable import LeakCheckUIKit
@testable import LeakRuntimeUIKit

struct InteractionError: Error {}

@MainActor @Suite struct ScreenLifecycleRunnerTests {
    @Test(arguments: [ScreenPresentation.present, .push, .hosting, .loadView])
    func stepsRunInOrderAndWaitForTheRealState(presentation: ScreenPresentation) async throws {
        let host = FakeScreenHost<FakeScreen>(showTurns: 3, hideTurns: 2)
        let screen = FakeScreen()
        try await host.runner(presentation).run(screen) { screen in
            host.note("interaction")
            screen.interactions += 1
        }
        let name = presentation.lifecycleName
        #expect(host.log == ["prepare(\(name))", "window", "show(\(name))", "up", "interaction", "hide(\(name))", "down", "tearDown"])
        #expect(host.turns == 5, "3 turns until it was up, 2 until it was down: no sleeping, no extra turns")
        #expect(screen.interactions == 1)
    }

    @Test func withoutAnInteractionTheScreenStillGoesUpAndDown() async throws {
        let host = FakeScreenHost<FakeScreen>(showTurns: 1, hideTurns: 1)
        try await host.runner(.present).run(FakeScreen(), interaction: nil)
        #expect(host.log == ["prepare(present)", "window", "show(present)", "up", "hide(present)", "down", "tearDown"])
    }

    @Test func aScreenThatNeverAppearsFailsAtTheDeadline() async {
        let host = FakeScreenHost<FakeScreen>(showTurns: nil)
        let error = await #expect(throws: ScreenLifecycleError.self) {
            try await host.runner(.present, timeout: .seconds(1)).run(FakeScreen()) { _ in host.note("interaction") }
        }
        #expect(error?.kind == .notShown)
        #expect(error?.message == "FakeScreen was not on screen 1.0 s after it was presented (timeout 1.0 s): viewDidAppear never came (another presentation in progress, or one an earlier test left up).")
        #expect(host.turns == 10, "one turn per 100 ms up to the deadline, then it stops")
        #expect(host.log == ["prepare(present)", "window", "show(present)", "tearDown"], "no interaction on a screen that is not up")
    }

    /// Nothing is presented or pushed on a window that has not appeared yet: the show waits for
    /// it, with a deadline of its own.
    @Test(arguments: [ScreenPresentation.present, .push])
    func theScreenIsShownOnlyOnceItsWindowHasAppeared(presentation: ScreenPresentation) async throws {
        let host = FakeScreenHost<FakeScreen>(windowTurns: 4, showTurns: 2, hideTurns: 1)
        try await host.runner(presentation, timeout: .milliseconds(500)).run(FakeScreen(), interaction: nil)
        let name = presentation.lifecycleName
        #expect(host.log == ["prepare(\(name))", "window", "show(\(name))", "up", "hide(\(name))", "down", "tearDown"])
        #expect(host.turns == 7, "4 turns for the window, 2 for the screen, 1 to go down")
    }

    @Test func aWindowThatNeverAppearsFailsBeforeAnythingIsShown() async {
        let host = FakeScreenHost<FakeScreen>(windowTurns: nil)
        let error = await #expect(throws: ScreenLifecycleError.self) {
            try await host.runner(.push, timeout: .milliseconds(300)).run(FakeScreen()) { _ in host.note("interaction") }
        }
        #expect(error?.kind == .notShown)
        #expect(error?.message == "FakeScreen was not pushed: its test window had not appeared 300 ms after it was opened (timeout 300 ms). Is the host app in the foreground, with its window scene active?")
        #expect(host.log == ["prepare(push)", "tearDown"], "never shown, and the host's window given back")
    }

    @Test func aPushThatNeverFinishesSaysSo() async {
        let host = FakeScreenHost<FakeScreen>(showTurns: nil)
        let error = await #expect(throws: ScreenLifecycleError.self) {
            try await host.runner(.push, timeout: .milliseconds(300)).run(FakeScreen(), interaction: nil)
        }
        #expect(error?.message.hasPrefix("FakeScreen was not on screen 300 ms after it was pushed") == true)
        #expect(error?.message.contains("navigation transition did not finish") == true)
    }

    @Test func aScreenThatDoesNotGoDownFailsAtTheDeadline() async {
        let host = FakeScreenHost<FakeScreen>(showTurns: 0, hideTurns: nil)
        let error = await #expect(throws: ScreenLifecycleError.self) {
            try await host.runner(.push, timeout: .milliseconds(500)).run(FakeScreen(), interaction: nil)
        }
        #expect(error?.kind == .notHidden)
        #expect(error?.message.hasPrefix("FakeScreen was still on screen 500 ms after it was popped (timeout 500 ms)") == true)
        #expect(host.log == ["prepare(push)", "window", "show(push)", "up", "hide(push)", "tearDown"])
    }

    @Test func noHostAppIsOneClearErrorAndTheWindowIsTornDown() async {
        let host = FakeScreenHost<FakeScreen>(
            prepareError: .needsHostApp("App.ProfileViewController", .present, detail: "the tests run without an app"))
        let error = await #expect(throws: ScreenLifecycleError.self) {
            try await host.runner(.present).run(FakeScreen()) { _ in host.note("interaction") }
        }
        #expect(error?.kind == .needsHostApp)
        #expect(error?.message.hasPrefix("ProfileViewController could not be presented — the test target needs a host app: the tests run without an app.") == true)
        #expect(host.log == ["prepare(present)", "tearDown"], "nothing shown without a window")
        #expect(host.turns == 0)
    }

    /// The interaction's error is the check's error, and the screen still goes down first.
    @Test func anInteractionThatThrowsIsRethrownAfterTheScreenIsDown() async {
        let host = FakeScreenHost<FakeScreen>(showTurns: 1, hideTurns: 1)
        await #expect(throws: InteractionError.self) {
            try await host.runner(.present).run(FakeScreen()) { _ in
                host.note("interaction")
                throw InteractionError()
            }
        }
        #expect(host.log == ["prepare(present)", "window", "show(present)", "up", "interaction", "hide(present)", "down", "tearDown"])
    }

    @Test func theInteractionsErrorWinsOverAScreenThatDidNotGoDown() async {
        let host = FakeScreenHost<FakeScreen>(showTurns: 0, hideTurns: nil)
        await #expect(throws: InteractionError.self) {
            try await host.runner(.present, timeout: .milliseconds(200)).run(FakeScreen()) { _ in throw InteractionError() }
        }
        #expect(host.turns == 2)
    }

    /// Each step has its own deadline: a slow show does not eat into the hide's time.
    @Test func eachStepHasItsOwnDeadline() async throws {
        let host = FakeScreenHost<FakeScreen>(showTurns: 8, hideTurns: 8)
        try await host.runner(.present, timeout: .seconds(1)).run(FakeScreen(), interaction: nil)
        #expect(host.time == .milliseconds(1600))
    }

    @Test(arguments: [(turns: 9, passes: true), (turns: 10, passes: true), (turns: 11, passes: false)])
    func aStateReachedAtTheDeadlinePasses(turns: Int, passes: Bool) async {
        let host = FakeScreenHost<FakeScreen>(showTurns: turns)
        do {
            try await host.runner(.present, timeout: .seconds(1)).run(FakeScreen(), interaction: nil)
            #expect(passes)
        } catch {
            #expect(!passes)
            #expect((error as? ScreenLifecycleError)?.message.contains("1.0 s after") == true)
            #expect(host.time == .seconds(1), "gave up at the deadline, not a turn later")
        }
    }
}
