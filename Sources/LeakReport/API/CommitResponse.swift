/// `GET /v1/projects/{project}/commits/{sha}`: a commit as uploads reported it, with the runs
/// stored for it.
public struct CommitResponse: Codable, Sendable, Hashable {
    /// One run at the commit, without its checks.
    public struct Run: Codable, Sendable, Hashable {
        public var runID: Int64
        public var runKey: String
        public var environment: String
        public var startedAt: String
        public var checks: Int
        public var leaked: Int
        public var lateRelease: Int
        public var errors: Int
        public var suspect: Bool
        /// The checks of the run that leaked, in upload order: those of this page.
        public var leaks: [Leak]

        public init(runID: Int64, runKey: String, environment: String, startedAt: String, checks: Int, leaked: Int,
                    lateRelease: Int, errors: Int, suspect: Bool, leaks: [Leak]) {
            self.runID = runID
            self.runKey = runKey
            self.environment = environment
            self.startedAt = startedAt
            self.checks = checks
            self.leaked = leaked
            self.lateRelease = lateRelease
            self.errors = errors
            self.suspect = suspect
            self.leaks = leaks
        }
    }

    /// One leaked check of a run.
    public struct Leak: Codable, Sendable, Hashable {
        public var scenario: String
        public var type: String
        public var file: String
        public var line: Int
        public var fingerprint: String?
        public var retainPath: [RetainPathStep]?
        public var message: String?

        public init(scenario: String, type: String, file: String, line: Int, fingerprint: String?,
                    retainPath: [RetainPathStep]?, message: String?) {
            self.scenario = scenario
            self.type = type
            self.file = file
            self.line = line
            self.fingerprint = fingerprint
            self.retainPath = retainPath
            self.message = message
        }
    }

    public var sha: String
    public var branch: String?
    public var parents: [String]
    /// Oldest first, every run; their `leaks` hold one page (`?limit=&cursor=`).
    public var runs: [Run]
    /// The cursor of the next page of leaks (`?cursor=`); absent on the last page.
    public var next: String?

    public init(sha: String, branch: String?, parents: [String], runs: [Run], next: String? = nil) {
        self.sha = sha
        self.branch = branch
        self.parents = parents
        self.runs = runs
        self.next = next
    }
}
