/// The types leaking at a branch's newest commit with data (`LeakStorage.leakingTypes`).
public struct LeakingTypes: Sendable, Hashable {
    /// Whether a type leaks in more scenarios at the head than along the commits before it.
    public enum Direction: Sendable, Hashable {
        case rising, falling, flat
    }

    /// One type leaking at the head.
    public struct Summary: Sendable, Hashable {
        public var type: String
        /// Sorted.
        public var leakingScenarios: [String]
        /// Where the oldest of its current leaking stretches began along the branch.
        public var firstSeen: String
        /// The head.
        public var lastSeen: String
        public var direction: Direction
    }

    /// The newest commit of the branch with data; nil when it has none.
    public var head: String?
    /// Sorted by type.
    public var types: [Summary]
}
