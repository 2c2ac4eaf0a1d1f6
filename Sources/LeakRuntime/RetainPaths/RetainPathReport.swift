import LeakReport

/// What holds a leaked object, as `findRetainPath(to:roots:limits:)` found it.
///
/// ```swift
/// let report = findRetainPath(to: viewModel)
/// report.readable  // "ProfileViewModel.coordinator → MainCoordinator.children[0] → ProfileViewModel"
/// ```
public struct RetainPathReport: Sendable, Hashable {
    /// Where a path starts.
    public enum Origin: String, Sendable, Hashable {
        /// The path leads from the object back to itself: a retain cycle.
        case cycle
        /// The path leads from one of the roots the caller passed, or from another object the
        /// check knows (another survivor, the container a service was resolved from).
        case root
        /// The path leads from a global or static variable of the process (its first step has
        /// the kind `global`).
        case global
        /// No path was found.
        case none
    }

    /// The shortest path back to the object (a cycle) or from a root; nil if none was found.
    /// Holders are module-qualified.
    public var steps: [RetainPathStep]?
    public var origin: Origin
    /// When no path was found: the stored closures, tasks and dispatch sources on the object and
    /// on objects it reaches that may hold something strongly, each as a sentence.
    public var suspects: [String]
    /// The bound the search reached, if any: `stopped after 100000 objects`, `stopped at depth 12`.
    public var limitReached: String?
    /// True when a path was found and every reference on it was read with its type (so each is
    /// known to be strong); false for a possible path, found partly by reading memory without
    /// types (`readable` says so), and when no path was found.
    public var isProven: Bool
    /// The path or the suspects, for failure messages, the same words the CLI and the dashboard
    /// print (`RetainPathStep.readable`); short type names.
    public var readable: String
    /// The `LeakFingerprint` of the type and the normalised path, or of the type and the
    /// suspects when there is no path.
    public var fingerprint: String
    /// A step of the path is a dispatch source's handler (for the hint).
    var throughDispatchSource = false

    public init(
        steps: [RetainPathStep]?, origin: Origin, suspects: [String], limitReached: String?,
        readable: String, fingerprint: String, isProven: Bool = false
    ) {
        self.isProven = isProven
        self.steps = steps
        self.origin = origin
        self.suspects = suspects
        self.limitReached = limitReached
        self.readable = readable
        self.fingerprint = fingerprint
    }
}

extension RetainPathReport {
    /// What a report line's `retainPath` carries: the steps of a proven path only. A possible
    /// path is in the message (`readable`), labelled so, not in the report's path.
    package var reportedSteps: [RetainPathStep]? { isProven ? steps : nil }
}
