import LeakReport

/// One scenario's keys and their states per commit, oldest first
/// (`LeakStorage.scenarioHistory`): a page of the newest commits, `next` the cursor of the older ones.
public struct ScenarioHistory: Sendable, Hashable {
    public struct Commit: Sendable, Hashable {
        public var commit: String
        public var keys: [Key]
    }

    public struct Key: Sendable, Hashable {
        public var type: String
        public var state: KeyState
        public var checked: Int
        public var leaked: Int
    }

    public var scenario: String
    public var environment: String
    public var commits: [Commit]
    /// Present when older commits exist: the page's oldest commit, the `before` of the page before.
    public var next: String?
}
