import LeakReport

/// `GET /v1/projects/{project}/scenarios/history?scenario=`: one scenario's keys and their
/// states per commit, oldest first.
public struct ScenarioHistory: Sendable, Hashable, Codable {
    public struct Commit: Sendable, Hashable, Codable {
        public var commit: String
        public var keys: [Key]
    }

    public struct Key: Sendable, Hashable, Codable {
        public var type: String
        public var state: KeyState
        public var checked: Int
        public var leaked: Int
    }

    public var scenario: String
    public var environment: String
    public var commits: [Commit]
}
