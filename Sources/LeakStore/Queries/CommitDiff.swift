import LeakReport

/// The leaks of an environment classified between two commits (`LeakDiff`), with the runs
/// each side stood on.
public struct CommitDiff: Sendable, Hashable {
    /// One commit of the comparison and the runs stored at it for the environment.
    public struct Side: Sendable, Hashable {
        public var commit: String
        /// At the base, its usable runs (suspect runs never count as a base); at the head every run.
        public var runs: Int
        /// At the head: its suspect runs, oldest first. They still count (a suspect run hides no
        /// leak) but fail the build with their own message. Empty at the base.
        public var suspectRuns: [SuspectRun] = []
    }

    /// A run in which nearly every check leaked or errored (see `IngestReceipt.suspect`).
    public struct SuspectRun: Sendable, Hashable {
        public var runID: Int64
        public var checks: Int
        public var leaked: Int
        public var errors: Int
    }

    /// Nil when no base was given: every leak at head is `unverified`.
    public var base: Side?
    public var head: Side
    /// Every classified key, sorted by type then scenario.
    public var leaks: LeakDiff
}
