import LeakReport

/// One scenario's keys and their states per commit, oldest first
/// (`LeakStorage.scenarioHistory`).
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
}
