/// How far a retain-path search may go. Reaching a bound ends the search with what it found and
/// says so in `RetainPathReport.limitReached`; it never hangs or crashes.
///
/// ```swift
/// let report = findRetainPath(to: viewModel, limits: RetainPathLimits(maxDepth: 6))
/// ```
public struct RetainPathLimits: Sendable, Hashable {
    /// The most references a path may have.
    public var maxDepth: Int
    /// The most objects the search may look at. Values inside objects (structs, collection
    /// elements) are bounded as well, at 16 for each object allowed.
    public var maxVisited: Int
    /// How long the search from the process's globals and statics may take (the backward scan
    /// of memory and the walk from the globals together), once the object is in no cycle and held
    /// by none of the roots passed.
    public var timeBudget: Duration
    /// False to search only cycles and the roots passed, not the process's globals and statics.
    public var searchesGlobals: Bool

    public init(
        maxDepth: Int = 12, maxVisited: Int = 100_000, timeBudget: Duration = .milliseconds(500),
        searchesGlobals: Bool = true
    ) {
        self.maxDepth = max(1, maxDepth)
        self.maxVisited = max(1, maxVisited)
        self.timeBudget = max(.zero, timeBudget)
        self.searchesGlobals = searchesGlobals
    }
}
