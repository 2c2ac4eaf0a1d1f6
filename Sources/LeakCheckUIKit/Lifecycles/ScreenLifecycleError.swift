import LeakCheck

/// Why a view-controller lifecycle could not take its screen through: one clear sentence,
/// reported as the check's error (never as a leak, which it would otherwise look like).
public struct ScreenLifecycleError: Error, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The screen cannot be shown in this test process at all.
        case needsHostApp
        /// It did not come up before the deadline.
        case notShown
        /// It did not go down before the deadline.
        case notHidden
    }

    public var kind: Kind
    public var message: String

    public var description: String { message }
    public var debugDescription: String { message }

    /// `detail` says what is missing: "the tests run without an app", "no window scene".
    static func needsHostApp(_ typeName: String, _ presentation: ScreenPresentation, detail: String) -> Self {
        ScreenLifecycleError(kind: .needsHostApp, message: "\(short(typeName)) could not be \(presentation.shownVerb) — "
            + "the test target needs a host app: \(detail). In Xcode, choose a Host Application for the test target "
            + "(the target's General tab, Testing), or check the controller with .loadView, which needs no window.")
    }

    static func windowNotShown(_ typeName: String, _ presentation: ScreenPresentation, waited: Duration, timeout: Duration) -> Self {
        ScreenLifecycleError(kind: .notShown, message: "\(short(typeName)) was not \(presentation.shownVerb): its test window "
            + "had not appeared \(LeakMessage.format(waited)) after it was opened (timeout \(LeakMessage.format(timeout))). "
            + "Is the host app in the foreground, with its window scene active?")
    }

    static func notShown(_ typeName: String, _ presentation: ScreenPresentation, waited: Duration, timeout: Duration) -> Self {
        let why = switch presentation {
        case .loadView: "loadView() did not set a view"
        case .push: "the navigation transition did not finish (viewDidAppear never came)"
        case .present, .hosting: "viewDidAppear never came (another presentation in progress, or one an earlier test left up)"
        }
        return ScreenLifecycleError(kind: .notShown, message: "\(short(typeName)) was not on screen "
            + "\(LeakMessage.format(waited)) after it was \(presentation.shownVerb) (timeout \(LeakMessage.format(timeout))): \(why).")
    }

    static func notHidden(_ typeName: String, _ presentation: ScreenPresentation, waited: Duration, timeout: Duration) -> Self {
        ScreenLifecycleError(kind: .notHidden, message: "\(short(typeName)) was still on screen "
            + "\(LeakMessage.format(waited)) after it was \(presentation.hiddenVerb) (timeout \(LeakMessage.format(timeout))): "
            + "the transition did not finish, so the window still holds it and a leak would be misleading. "
            + "Is something presented on top of it (an alert the interaction left open)?")
    }

    private static func short(_ typeName: String) -> String {
        typeName.split(separator: ".").last.map(String.init) ?? typeName
    }
}
