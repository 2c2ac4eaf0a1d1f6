import LeakReport

/// What a project's dashboard lists besides the regression queries: its newest runs and
/// leaks, and the branches and environments it has data for. Every list is bounded.
public struct ProjectActivity: Sendable, Hashable {
    /// One stored run, newest first.
    public struct Run: Sendable, Hashable {
        public var runID: Int64
        public var commit: String
        public var branch: String?
        public var environment: String
        public var startedAt: String
        public var checks: Int
        public var leaked: Int
        public var lateRelease: Int
        public var errors: Int
        public var suspect: Bool
    }

    /// One leaked check of a usable run, newest run first.
    public struct Leak: Sendable, Hashable {
        public var commit: String
        public var branch: String?
        public var environment: String
        public var startedAt: String
        public var scenario: String
        public var type: String
        public var file: String
        public var line: Int
        public var fingerprint: String?
    }

    public var runs: [Run]
    public var leaks: [Leak]
    /// Branches with uploads, by name.
    public var branches: [String]
    /// Environments with uploads, by name.
    public var environments: [String]
    /// True when a list was cut at its limit.
    public var runsCut: Bool
    public var leaksCut: Bool
}

/// One leak key of a type at a branch's newest commit with data, with what its most telling
/// check said and the commit along the branch where it first leaked.
public struct TypeLeak: Sendable, Hashable {
    public var scenario: String
    /// `leaked` or `flaky` (runs at the commit disagree).
    public var state: KeyState
    public var file: String
    public var line: Int
    public var fingerprint: String?
    public var retainPath: [RetainPathStep]?
    public var message: String?
    /// The first commit of the branch where this key leaked, when known.
    public var introducedBy: String?
}
