/// The verdict of `GateRule` and the evidence it rests on, carried on every new and flaky diff
/// entry it judged (JSON `evidence`), so that a person can check why a key got its category.
///
/// ```json
/// {"confirmedAtHead":true,"headRuns":1,"headLeakedRuns":1,"headAttempts":3,"headLeakedAttempts":3,
///  "recentRuns":200,"recentLeakedRuns":62,"commitsLookedAt":400,
///  "summary":"confirmed, but leaked in 31% of its last 200 runs"}
/// ```
public struct GateEvidence: Codable, Sendable, Hashable {
    /// No run and no attempt at head released the key.
    public var confirmedAtHead: Bool
    public var headRuns: Int
    public var headLeakedRuns: Int
    public var headAttempts: Int
    public var headLeakedAttempts: Int
    /// The runs the key's rate was measured over, and those that leaked it.
    public var recentRuns: Int
    public var recentLeakedRuns: Int
    /// Usable commits of history read.
    public var commitsLookedAt: Int
    /// Commits back to where the measured stretch starts (a held leak ended there); nil when the
    /// whole window counts.
    public var sinceChange: Int?
    /// The head's other environments that leaked the key in every run and attempt, whose rates
    /// the verdict multiplied in (`GateRule`, step 4); nil when none did.
    public var otherEnvironments: [OtherEnvironment]?
    /// One sentence a person can check, e.g. "confirmed, but leaked in 31% of its last 200 runs".
    public var summary: String

    /// The key at head in another environment: its leaked attempts there that the verdict
    /// counted (`GateRule.countedSightings`), and the runs its rate there was measured over.
    public struct OtherEnvironment: Codable, Sendable, Hashable {
        public var environment: String
        public var countedAttempts: Int
        public var recentRuns: Int
        public var recentLeakedRuns: Int

        public init(environment: String, countedAttempts: Int, recentRuns: Int, recentLeakedRuns: Int) {
            self.environment = environment
            self.countedAttempts = countedAttempts
            self.recentRuns = recentRuns
            self.recentLeakedRuns = recentLeakedRuns
        }
    }

    public init(confirmedAtHead: Bool, headRuns: Int, headLeakedRuns: Int, headAttempts: Int, headLeakedAttempts: Int,
                recentRuns: Int, recentLeakedRuns: Int, commitsLookedAt: Int, sinceChange: Int?,
                otherEnvironments: [OtherEnvironment]? = nil, summary: String) {
        self.confirmedAtHead = confirmedAtHead
        self.headRuns = headRuns
        self.headLeakedRuns = headLeakedRuns
        self.headAttempts = headAttempts
        self.headLeakedAttempts = headLeakedAttempts
        self.recentRuns = recentRuns
        self.recentLeakedRuns = recentLeakedRuns
        self.commitsLookedAt = commitsLookedAt
        self.sinceChange = sinceChange
        self.otherEnvironments = otherEnvironments
        self.summary = summary
    }
}
