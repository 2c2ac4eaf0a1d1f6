/// The words of LeakCheck's failures and warnings, in one place.
package enum LeakMessage {
    package static let usualHolders = """
        What usually keeps an object alive: a closure stored on it (or on something it owns) that \
        captures self strongly — use [weak self]; a delegate or parent property that is not weak; \
        a Timer, DispatchSource or CADisplayLink that was never invalidated; a NotificationCenter \
        observer that was never removed; a Task that is still running and captures it.
        """

    /// One survivor, or a group's survivors, after the timeout and grace period. Each proven path
    /// comes with its own hint; the usual holders are listed only when some survivor has none.
    package static func leaked(
        _ survivors: [(typeName: String, waited: Duration, retainPath: String?, hint: String?)], groupSize: Int,
        timeouts: DeallocationTimeouts
    ) -> String {
        let waited = survivors.map(\.waited).max() ?? .zero
        var text: String
        if groupSize == 1, let only = survivors.first {
            text = "\(only.typeName) was not deallocated: it is still alive \(format(waited)) after it was released "
                + "(timeout \(format(timeouts.resolvedTimeout)), plus a grace period of \(format(timeouts.resolvedGracePeriod)))."
        } else {
            text = "\(survivors.count) of \(groupSize) objects were not deallocated, still alive \(format(waited)) after release "
                + "(timeout \(format(timeouts.resolvedTimeout)), plus a grace period of \(format(timeouts.resolvedGracePeriod))):"
            for survivor in survivors {
                text += "\n  - \(survivor.typeName)"
            }
        }
        for survivor in survivors {
            if let path = survivor.retainPath {
                text += "\nWhat holds \(groupSize == 1 ? "it" : survivor.typeName): \(path)"
            }
            if let hint = survivor.hint {
                text += "\n  To release it: \(hint)"
            }
        }
        if survivors.allSatisfy({ $0.hint != nil }) { return text }
        return text + "\n" + usualHolders
    }

    /// A leak under `LEAKHISTORY_REPORT_ONLY=1`: the leak's own message, then why it is a warning.
    package static func reportOnly(_ leak: String) -> String {
        leak + "\nReport-only (\(ReportOnlyMode.variable)=1): recorded in the leak report as leaked, not failing "
            + "the test. `leakhistory check` is the gate that fails the build on a new leak."
    }

    package static func reportOnlyNotUnderstood(_ value: String) -> String {
        "LeakCheck: \(ReportOnlyMode.variable)=\(value) is not understood (use 1 to record leaks as warnings, "
            + "0 to fail tests on them); leaks fail tests as usual."
    }

    /// Said once per process when no report can be written.
    package static func noReportDestination(workingDirectory: String) -> String {
        "LeakCheck: checks are not written to a leak report: LEAKHISTORY_REPORT is not set and \(workingDirectory) has "
            + "no .build folder (as under Xcode or xcodebuild). Set LEAKHISTORY_REPORT to a folder ending in / in the "
            + "scheme's or test plan's environment variables (e.g. $(SRCROOT)/.build/leakhistory/), or pass "
            + "TEST_RUNNER_LEAKHISTORY_REPORT=<folder>/ to xcodebuild."
    }

    package static func lateRelease(_ typeName: String, waited: Duration, timeout: Duration) -> String {
        "\(typeName) was deallocated late: \(format(waited)) after release, past the \(format(timeout)) timeout "
            + "but within the grace period. Not a leak; something released it asynchronously (a Task, a timer, a queued block)."
    }

    package static func lifecycleThrew(_ typeName: String, lifecycle: String, error: any Error) -> String {
        "The \(lifecycle) lifecycle of \(typeName) threw: \(String(reflecting: error)) The deallocation check did not run. Fix the error; it is reported as an error, not as a leak."
    }

    package static func resolvedNothing(_ serviceName: String) -> String {
        "The container resolved nothing for \(serviceName) (resolve returned nil); register it before checking its deallocation."
    }

    package static func resolvedValueType(_ serviceName: String, valueType: String) -> String {
        "The container resolved \(serviceName) to \(valueType), a value type; only class instances can leak. Check a class-backed service instead."
    }

    package static func trackedWithoutTrait(_ typeName: String) -> String {
        "trackForDeallocation(\(typeName)) is not checked: this test has no deallocation check. Add the trait: "
            + "@Test(.checksDeallocation) or @Suite(.checksDeallocation), or use expectDeallocation { … } instead."
    }

    /// `1.2 ms`, `300 ms`, `2.0 s`.
    package static func format(_ duration: Duration) -> String {
        let ms = duration.milliseconds
        if ms < 10 { return "\((ms * 10).rounded() / 10) ms".replacingOccurrences(of: ".0 ms", with: " ms") }
        if ms < 1000 { return "\(Int(ms.rounded())) ms" }
        return "\((ms / 100).rounded() / 10) s"
    }
}

extension Duration {
    /// This duration in milliseconds, with fractions.
    package var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
