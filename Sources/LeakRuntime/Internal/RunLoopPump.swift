import Foundation

/// Lets the current thread's run loop deliver timers and queued blocks for about `duration`;
/// sleeps the rest when the run loop has nothing to run (it then returns at once).
package enum RunLoopPump {
    package static func run(for duration: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: seconds))
        let rest = deadline - clock.now
        if rest > .zero {
            Thread.sleep(forTimeInterval: Double(rest.components.seconds) + Double(rest.components.attoseconds) / 1e18)
        }
    }
}
