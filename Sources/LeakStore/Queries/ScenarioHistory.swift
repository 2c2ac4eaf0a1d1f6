import LeakReport

/// `GET /v1/projects/{project}/scenarios/history?scenario=&limit=&cursor=`: one scenario's keys
/// and their states per commit, oldest first; `next` pages back to older commits.
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
    /// Present when older commits exist: the `cursor` of the page before (the oldest commit here).
    public var next: String?
}
