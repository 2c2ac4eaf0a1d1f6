/// Takes a screen through a view-controller lifecycle: put up its test window and wait until it
/// has appeared, show, wait until it is really up, run the interaction, hide, wait until it is
/// really down. Every wait has its own deadline,
/// counted from the start of that step, and waits by letting the run loop turn, never by
/// sleeping. Platform-neutral: the UIKit and AppKit lifecycles, and the tests' fake host, drive
/// this one sequence.
@MainActor
struct ScreenLifecycleRunner<Host: ScreenHost> {
    let host: Host
    let presentation: ScreenPresentation
    /// How long each step may take to reach its state.
    let timeout: Duration
    /// Time since an arbitrary origin; the fake host's clock in tests.
    var now: () -> Duration = ScreenClock.now

    /// Runs the lifecycle. Throws `ScreenLifecycleError` when a step does not reach its state
    /// in time, or the interaction's own error; the screen is taken down in either case, so
    /// that the next test starts with a clean window.
    func run(_ screen: Host.Screen, interaction: (@MainActor (Host.Screen) async throws -> Void)?) async throws {
        defer { host.tearDown() }
        let typeName = String(reflecting: type(of: screen))
        try host.prepare(screen, as: presentation)
        try await wait(until: { host.isPrepared(as: presentation) }) { waited in
            .windowNotShown(typeName, presentation, waited: waited, timeout: timeout)
        }
        host.show(screen, as: presentation)
        try await wait(until: { host.isShown(screen, as: presentation) }) { waited in
            .notShown(typeName, presentation, waited: waited, timeout: timeout)
        }
        var interactionError: (any Error)?
        if let interaction {
            do {
                try await interaction(screen)
            } catch {
                interactionError = error
            }
        }
        host.hide(screen, as: presentation)
        let hidden: Result<Void, any Error>
        do {
            try await wait(until: { host.isHidden(screen, as: presentation) }) { waited in
                .notHidden(typeName, presentation, waited: waited, timeout: timeout)
            }
            hidden = .success(())
        } catch {
            hidden = .failure(error)
        }
        // The interaction's error comes first: it is why the screen may not have gone down.
        if let interactionError { throw interactionError }
        try hidden.get()
    }

    /// Checks `condition` at once and after every turn of the run loop, until it holds or
    /// `timeout` has passed since this step began (a condition that holds at the deadline passes).
    func wait(
        until condition: () -> Bool, orFail failure: (_ waited: Duration) -> ScreenLifecycleError
    ) async throws {
        let start = now()
        while !condition() {
            let waited = now() - start
            if waited >= timeout { throw failure(waited) }
            await host.nextTurn()
        }
    }
}
