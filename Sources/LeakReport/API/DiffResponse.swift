/// `GET /v1/projects/{project}/diff?base=&head=&environment=`: the leak diff between two
/// commits, naming the commits actually compared.
public struct DiffResponse: Codable, Sendable, Hashable {
    public struct Side: Codable, Sendable, Hashable {
        public var commit: String
        /// Runs stored at this commit for the environment (suspect runs excluded).
        public var runs: Int

        public init(commit: String, runs: Int) {
            self.commit = commit
            self.runs = runs
        }
    }

    public var project: String
    public var environment: String
    public var base: Side
    public var head: Side
    /// Every classified key, sorted by type then scenario.
    public var entries: [LeakDiff.Entry]
    /// Entries per category; every category is present, zero included.
    public var counts: [String: Int]

    public init(project: String, environment: String, base: Side, head: Side, diff: LeakDiff) {
        self.project = project
        self.environment = environment
        self.base = base
        self.head = head
        self.entries = diff.entries
        var counts = Dictionary(uniqueKeysWithValues: LeakDiff.Category.allCases.map { ($0.rawValue, 0) })
        for (category, count) in diff.counts { counts[category.rawValue] = count }
        self.counts = counts
    }

    public var diff: LeakDiff { LeakDiff(entries: entries) }
}
