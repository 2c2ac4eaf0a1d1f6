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
        /// the kind `global`), or from a dispatch timer libdispatch has armed (kind `timer`).
        case global
        /// No path was found, not even a possible one.
        case none
    }

    /// The shortest path back to the object (a cycle) or from a root, proven if one was found,
    /// else a possible one (steps not proven strong are `isPossible`): one read partly from memory
    /// without types, or the path to the first suspect. Nil if neither was found. Holders are
    /// module-qualified.
    public var steps: [RetainPathStep]?
    public var origin: Origin
    /// When no path was proven or read from memory: the stored closures, tasks and dispatch
    /// sources on the object and on objects it reaches that may hold something strongly, each as
    /// a sentence. The first is also `steps`' last step, a possible one.
    public var suspects: [String]
    /// The bound the search reached, when no proven path was found: `stopped after 100000
    /// objects`, `stopped at depth 12`, `stopped the backward scan of memory at depth 8`.
    public var limitReached: String?
    /// True when a path was found and every reference on it was read with its type (so each is
    /// known to be strong); false for a possible path (`readable` says so) and when no path was
    /// found.
    public var isProven: Bool
    /// The path, for failure messages, in the words the CLI and the dashboard print
    /// (`RetainPathStep.readable`), then the other suspects and the bound the search reached, if
    /// any; short type names.
    public var readable: String
    /// The `LeakFingerprint` of the type and the normalised path, or of the type and the
    /// suspects when there is no path.
    public var fingerprint: String
    /// A step of the path is a dispatch source's handler (for the hint).
    var throughDispatchSource = false
    /// The path starts at a block `asyncAfter` keeps until its deadline (for the hint).
    var throughAsyncAfter = false

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
