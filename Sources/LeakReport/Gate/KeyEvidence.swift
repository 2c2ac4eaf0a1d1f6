/// What the gate knows about one key that leaked at head and not (confirmed) at base: the runs
/// and attempts at head, and the key's runs along the head's ancestry. `GateRule.judge` reads it.
///
/// ```swift
/// // Leaked in 3 of 3 attempts of the head's one run; clean in the 412 commits before.
/// let evidence = KeyEvidence(headRuns: 1, headLeakedRuns: 1, headAttempts: 3, headLeakedAttempts: 3,
///                            history: Array(repeating: .init(runs: 1, leakedRuns: 0), count: 412))
/// GateRule.judge(evidence).verdict   // .new
/// ```
public struct KeyEvidence: Sendable, Hashable {
    /// At head: usable runs that checked the key, and those that leaked it.
    public var headRuns: Int
    public var headLeakedRuns: Int
    /// At head: attempts in all over those runs, and the attempts that leaked (a check without
    /// attempts counts one attempt, leaked or not).
    public var headAttempts: Int
    public var headLeakedAttempts: Int
    /// Along the head's ancestry, newest first (the base first): one element per usable commit
    /// that checked the key.
    public var history: [RunTally]
    /// The same key at the same head in the project's other environments whose runs there leaked
    /// it in every run and attempt, by environment, each with its own history there: a real leak
    /// shows in every environment that runs the code, an intermittent key in each with its own
    /// rate. Read only where the rule asks for them (`GateRule.readsOtherEnvironments`); a clean
    /// run elsewhere is not read, since a leak can be one platform's.
    public var otherEnvironments: [String: KeyEvidence] = [:]

    /// One commit's runs that checked the key, and those of them that leaked it.
    public struct RunTally: Sendable, Hashable {
        public var runs: Int
        public var leakedRuns: Int
        /// Attempts of the commit's leaked checks that released the object. Read for the base
        /// alone, whose leak some attempt released is the key's intermittence, not a state that
        /// hides the head's leak (`LeakDiff.isJudged`); 0 at the other commits, where the rate
        /// is measured in runs.
        public var releasedAttempts: Int

        public init(runs: Int, leakedRuns: Int, releasedAttempts: Int = 0) {
            self.runs = runs
            self.leakedRuns = leakedRuns
            self.releasedAttempts = releasedAttempts
        }

        /// Every run of the commit leaked the key and no attempt there released it: a leak
        /// that held there, not the key's intermittence.
        public var confirmedLeak: Bool { runs > 0 && leakedRuns >= runs && releasedAttempts == 0 }
    }

    public init(headRuns: Int, headLeakedRuns: Int, headAttempts: Int, headLeakedAttempts: Int, history: [RunTally]) {
        self.headRuns = headRuns
        self.headLeakedRuns = headLeakedRuns
        self.headAttempts = headAttempts
        self.headLeakedAttempts = headLeakedAttempts
        self.history = history
    }

    /// A leak at head that no run or attempt there released.
    public var confirmedAtHead: Bool {
        headLeakedRuns >= headRuns && headLeakedAttempts >= headAttempts
    }
}
