import LeakReport

/// Something a `LeakWatcher` check found, as handed to its handlers and written to the report.
public struct LeakWatcherFinding: Sendable {
    public enum Kind: Sendable, Hashable {
        /// A watched object stayed alive for the configured number of checks in a row.
        case leak
        /// An object reported as leaked was deallocated after all: a warning, not a leak.
        case lateRelease
        /// More live watched instances of a type or group than its budget allows.
        case budgetExceeded(LeakBudget)
    }

    public var kind: Kind
    /// The report line: `source` is `watcher`.
    public var record: CheckRecord
    /// What holds the object, for leaks and exceeded budgets when retain paths are searched.
    public var retainPath: RetainPathReport?
}
