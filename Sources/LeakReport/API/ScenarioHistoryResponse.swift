/// `GET /v1/projects/{project}/scenarios/history?scenario=`: one scenario's keys and their
/// states per commit, oldest first.
public struct ScenarioHistoryResponse: Codable, Sendable, Hashable {
    public struct Commit: Codable, Sendable, Hashable {
        public var commit: String
        public var keys: [Key]

        public init(commit: String, keys: [Key]) {
            self.commit = commit
            self.keys = keys
        }
    }

    public struct Key: Codable, Sendable, Hashable {
        public var type: String
        public var state: KeyState
        public var checked: Int
        public var leaked: Int

        public init(type: String, state: KeyState, checked: Int, leaked: Int) {
            self.type = type
            self.state = state
            self.checked = checked
            self.leaked = leaked
        }
    }

    public var scenario: String
    public var environment: String
    public var commits: [Commit]

    public init(scenario: String, environment: String, commits: [Commit]) {
        self.scenario = scenario
        self.environment = environment
        self.commits = commits
    }
}
