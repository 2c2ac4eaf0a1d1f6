/// How one deallocation check ended.
public enum CheckOutcome: String, Codable, Sendable, CaseIterable {
    /// The object was gone before the timeout.
    case deallocated
    /// The object was still alive after the timeout and the grace period.
    case leaked
    /// The object outlived the timeout but went during the grace period: a warning, not a leak.
    case lateRelease
    /// The check could not run to the end (a lifecycle threw, a resolved value was not a class).
    case error
}

/// Where a check came from.
public enum CheckSource: String, Codable, Sendable {
    /// A test: `expectDeallocation`, `trackForDeallocation`, `assertDeallocation`.
    case test
    /// A running program's `LeakWatcher`.
    case watcher
}
