import LeakCheck

extension DeallocationLifecycle {
    /// A lifecycle that shows the screen `makeScreen` builds from the object with a host
    /// `makeHost` makes (one per check), runs `interaction` while it is up, and takes it down.
    /// The view-controller lifecycles (`.present`, `.push`, `.loadView`, `.hosting`) are this
    /// with the UIKit or AppKit host; the tests use a fake one.
    ///
    /// Errors — the screen's own (`ScreenLifecycleError`) and the interaction's — are reported as
    /// the check's error, never as a leak.
    static func screen<Host: ScreenHost>(
        _ presentation: ScreenPresentation,
        timeout: Duration,
        host makeHost: @escaping @MainActor () -> Host,
        screen makeScreen: @escaping @MainActor (Object) -> Host.Screen,
        interaction: (@MainActor (Object) async throws -> Void)?
    ) -> DeallocationLifecycle<Object> {
        DeallocationLifecycle(name: presentation.lifecycleName) { object in
            try await runScreen(
                object, presentation, timeout: timeout, host: makeHost, screen: makeScreen, interaction: interaction)
        }
    }
}

/// The main-actor part of `DeallocationLifecycle.screen`: the screen lives only in this frame,
/// so that nothing of the lifecycle's keeps it (or the object) alive once it returns.
@MainActor
private func runScreen<Object, Host: ScreenHost>(
    _ object: sending Object,
    _ presentation: ScreenPresentation,
    timeout: Duration,
    host makeHost: @MainActor () -> Host,
    screen makeScreen: @MainActor (Object) -> Host.Screen,
    interaction: (@MainActor (Object) async throws -> Void)?
) async throws {
    let runner = ScreenLifecycleRunner(host: makeHost(), presentation: presentation, timeout: timeout)
    let screen = makeScreen(object)
    var onScreen: (@MainActor (Host.Screen) async throws -> Void)?
    if let interaction {
        onScreen = { _ in try await interaction(object) }
    }
    try await runner.run(screen, interaction: onScreen)
}
