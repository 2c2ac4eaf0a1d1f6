/// `GET /v1/projects/{project}/types/{type}/trend?branch=&limit=`: one type's leaks per commit
/// along a branch, oldest first (first-parent order from stored parents; upload order where
/// parents are unknown).
public struct TrendResponse: Codable, Sendable, Hashable {
    public struct Point: Codable, Sendable, Hashable {
        public var commit: String
        /// When the commit's first run started, ISO 8601.
        public var at: String
        /// Keys of this type that leaked at the commit.
        public var leakedKeys: Int
        /// Keys of this type that were checked at the commit.
        public var checkedKeys: Int
        /// Scenarios in which it leaked.
        public var scenarios: [String]
        public var fingerprints: [String]

        public init(commit: String, at: String, leakedKeys: Int, checkedKeys: Int, scenarios: [String], fingerprints: [String]) {
            self.commit = commit
            self.at = at
            self.leakedKeys = leakedKeys
            self.checkedKeys = checkedKeys
            self.scenarios = scenarios
            self.fingerprints = fingerprints
        }
    }

    public var type: String
    public var branch: String
    public var environment: String?
    public var points: [Point]

    public init(type: String, branch: String, environment: String?, points: [Point]) {
        self.type = type
        self.branch = branch
        self.environment = environment
        self.points = points
    }
}

/// `GET /v1/projects/{project}/types?branch=`: each type that leaks at the branch head.
public struct TypesResponse: Codable, Sendable, Hashable {
    public enum Direction: String, Codable, Sendable {
        case rising, falling, flat
    }

    public struct Summary: Codable, Sendable, Hashable {
        public var type: String
        public var leakingScenarios: [String]
        public var firstSeen: String
        public var lastSeen: String
        public var direction: Direction

        public init(type: String, leakingScenarios: [String], firstSeen: String, lastSeen: String, direction: Direction) {
            self.type = type
            self.leakingScenarios = leakingScenarios
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
            self.direction = direction
        }
    }

    public var branch: String
    /// The newest commit of the branch with data, if any.
    public var head: String?
    public var types: [Summary]
    /// Present when more types follow (sorted by name): the `cursor` of the next page.
    public var next: String?

    public init(branch: String, head: String?, types: [Summary], next: String? = nil) {
        self.branch = branch
        self.head = head
        self.types = types
        self.next = next
    }
}
