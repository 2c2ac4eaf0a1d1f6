/// What a view-controller lifecycle needs from UIKit or AppKit: put a screen up, take it down,
/// and say what state it is really in. `ScreenLifecycleRunner` does the sequencing, the
/// deadlines and the messages; a host only does what the platform must.
///
/// The UIKit and AppKit hosts show screens in a test window of their own; the tests drive the
/// runner through a fake host.
@MainActor
protocol ScreenHost: AnyObject {
    associatedtype Screen: AnyObject

    /// Puts up what `screen` will be shown in (a test window); returns at once. Throws
    /// `ScreenLifecycleError` when it cannot be done at all (no host app, no window scene): said
    /// once, instead of a misleading leak.
    func prepare(_ screen: Screen, as presentation: ScreenPresentation) throws

    /// Whether that is up and can take the screen: the test window visible and key, its root
    /// appeared. Nothing is presented or pushed before.
    func isPrepared(as presentation: ScreenPresentation) -> Bool

    /// Starts putting `screen` up; returns at once.
    func show(_ screen: Screen, as presentation: ScreenPresentation)

    /// Whether `screen` is really up: loaded, or on screen with its transition finished, as the
    /// platform's appearance callbacks said.
    func isShown(_ screen: Screen, as presentation: ScreenPresentation) -> Bool

    /// Starts taking `screen` down (dismiss, pop); returns at once.
    func hide(_ screen: Screen, as presentation: ScreenPresentation)

    /// Whether `screen` is really down: dismissed or popped, its transition finished.
    func isHidden(_ screen: Screen, as presentation: ScreenPresentation) -> Bool

    /// Takes down what `prepare` set up (the test window) and makes the window that was key
    /// before key again. Called once at the end, whatever happened.
    func tearDown()

    /// Lets the main run loop go around once, so that transitions progress: the runner's only
    /// way of waiting. No sleeping.
    func nextTurn() async
}
