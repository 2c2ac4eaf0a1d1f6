import LeakReport

/// A commit as uploads reported it, with the runs stored for it.
public struct CommitSummary: Sendable, Hashable {
    /// One run at the commit, without its checks.
    public struct Run: Sendable, Hashable {
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
    }

    /// One leaked check of a run.
    public struct Leak: Sendable, Hashable {
        public var scenario: String
        public var type: String
        public var file: String
        public var line: Int
        public var fingerprint: String?
        public var retainPath: [RetainPathStep]?
        public var message: String?
    }

    public var sha: String
    public var branch: String?
    public var parents: [String]
    /// Oldest first, every run; their `leaks` hold one page (`LeakStore.commit(project:sha:limit:cursor:)`).
    public var runs: [Run]
    /// The cursor of the next page of leaks; nil on the last page.
    public var next: String?
}
