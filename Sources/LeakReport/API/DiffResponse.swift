/// `GET /v1/projects/{project}/diff?base=&head=&environment=&after=`: the leak diff between two
/// commits, naming the commits actually compared. Without `base`, every leak at head is
/// `unverified` and `base` is null.
public struct DiffResponse: Codable, Sendable, Hashable {
    public struct Side: Codable, Sendable, Hashable {
        public var commit: String
        /// Runs stored at this commit for the environment. At the base, suspect runs are left out
        /// (they never count as a base); at the head every run counts.
        public var runs: Int
        /// At the head: its suspect runs, which still count (a suspect run hides no leak) but fail
        /// the build with their own message. Absent when there are none.
        public var suspectRuns: [SuspectRun]?

        public init(commit: String, runs: Int, suspectRuns: [SuspectRun]? = nil) {
            self.commit = commit
            self.runs = runs
            self.suspectRuns = suspectRuns
        }
    }

    /// A run in which nearly every check leaked or errored (see `UploadReceipt.suspect`).
    public struct SuspectRun: Codable, Sendable, Hashable {
        public var runID: Int64
        public var checks: Int
        public var leaked: Int
        public var errors: Int

        public init(runID: Int64, checks: Int, leaked: Int, errors: Int) {
            self.runID = runID
            self.checks = checks
            self.leaked = leaked
            self.errors = errors
        }
    }

    public var project: String
    public var environment: String
    /// Nil when no base was given: there was nothing to compare with.
    public var base: Side?
    public var head: Side
    /// Every classified key, sorted by type then scenario.
    public var entries: [LeakDiff.Entry]
    /// Entries per category; every category is present, zero included.
    public var counts: [String: Int]

    public init(project: String, environment: String, base: Side?, head: Side, diff: LeakDiff) {
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
