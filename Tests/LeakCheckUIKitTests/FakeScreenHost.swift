@testable import LeakCheckUIKit
@testable import LeakRuntimeUIKit

/// A screen for the fake host: a plain class, as a view controller would be.
final class FakeScreen {
    var interactions = 0
}

/// A screen that keeps itself alive, as a controller whose closure captures self does.
final class LeakyFakeScreen {
    var onClose: (() -> Void)?
    init() { onClose = { _ = self } }
}

/// Plays a platform's part for `ScreenLifecycleRunner`: the test window appears `windowTurns`
/// turns of the run loop after `prepare`, a screen comes up `showTurns` turns after `show`
/// (never, when nil) and goes down `hideTurns` turns after `hide`.
/// Each turn advances its clock by `turn`. It logs what the runner asked for, in order.
@MainActor
final class FakeScreenHost<Screen: AnyObject>: ScreenHost {
    var windowTurns: Int?
    var showTurns: Int?
    var hideTurns: Int?
    var prepareError: ScreenLifecycleError?
    let turn: Duration

    private(set) var log: [String] = []
    private(set) var time: Duration = .zero
    private(set) var turns = 0
    private var windowAt: Int?
    private var reportedWindow = false
    private var shownAt: Int?
    private var hiddenAt: Int?
    private var reportedUp = false
    private var reportedDown = false

    init(
        windowTurns: Int? = 0, showTurns: Int? = 0, hideTurns: Int? = 0, prepareError: ScreenLifecycleError? = nil,
        turn: Duration = .milliseconds(100)
    ) {
        self.windowTurns = windowTurns
        self.showTurns = showTurns
        self.hideTurns = hideTurns
        self.prepareError = prepareError
        self.turn = turn
    }

    func prepare(_ screen: Screen, as presentation: ScreenPresentation) throws {
        log.append("prepare(\(presentation.lifecycleName))")
        if let prepareError { throw prepareError }
        windowAt = windowTurns.map { turns + $0 }
    }

    func isPrepared(as presentation: ScreenPresentation) -> Bool {
        guard let windowAt, turns >= windowAt else { return false }
        if !reportedWindow { log.append("window"); reportedWindow = true }
        return true
    }

    func show(_ screen: Screen, as presentation: ScreenPresentation) {
        log.append("show(\(presentation.lifecycleName))")
        shownAt = showTurns.map { turns + $0 }
    }

    func isShown(_ screen: Screen, as presentation: ScreenPresentation) -> Bool {
        guard let shownAt, turns >= shownAt else { return false }
        if !reportedUp { log.append("up"); reportedUp = true }
        return true
    }

    func hide(_ screen: Screen, as presentation: ScreenPresentation) {
        log.append("hide(\(presentation.lifecycleName))")
        hiddenAt = hideTurns.map { turns + $0 }
    }

    func isHidden(_ screen: Screen, as presentation: ScreenPresentation) -> Bool {
        guard let hiddenAt, turns >= hiddenAt else { return false }
        if !reportedDown { log.append("down"); reportedDown = true }
        return true
    }

    func tearDown() {
        log.append("tearDown")
    }

    func nextTurn() async {
        turns += 1
        time += turn
        await Task.yield()
    }

    func runner(_ presentation: ScreenPresentation, timeout: Duration = .seconds(1)) -> ScreenLifecycleRunner<FakeScreenHost> {
        ScreenLifecycleRunner(host: self, presentation: presentation, timeout: timeout, now: { [unowned self] in time })
    }

    /// For the interactions: notes the step in the log.
    func note(_ step: String) { log.append(step) }
}
