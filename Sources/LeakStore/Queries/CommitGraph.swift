/// What one PostgreSQL connection has learned of the projects' first-parent lines, kept from one
/// read to the next (`ConnectionMemory.commitGraph`), so that a diff does not read again, probe
/// by probe, the commit graph the previous diff walked (the base's 400-commit line is some 1,600
/// index probes; what they cost a diff is in BENCHMARKS.md, "The store's tuning").
///
/// Two kinds of facts, told apart by whether a later upload can change them:
/// - **Kept as learned:** a commit's sha and its first parent's id. A commit's sha changes once,
///   from a pending upload's placeholder (never learned here) at its publish; only placeholders
///   are deleted; a commit's parent rows are inserted once (`ON CONFLICT DO NOTHING`); and the
///   commit a parent's sha names, once the server has it, stays that one. A connection runs
///   its transactions one after the other, so every snapshot it reads in is at least as new as
///   the one a fact was learned in: such a fact is true in it.
/// - **Checked in each snapshot:** where a walk went on from a commit whose first parent the
///   server did not have — the branch's previous commit in upload order (nil: none, or no branch
///   to follow). An upload of that parent, or a pending upload published late onto the branch
///   with the older id it took when it began, changes it; `ProjectHistory.lineStep` reads both
///   again beside the commits' runs and walks from the SQL where either changed.
///
/// - **Kept as learned, one way:** that a commit has a usable (non-suspect) run in an
///   environment. A run is stored whole at its publish, when it reaches its commit with its
///   environment and its suspect flag, and none of them changes after; only pending runs (at
///   their placeholder commits) are deleted. A commit learned without one is asked again.
///
/// What is never kept: what more runs can change — when a commit's first usable run started (a
/// run published late may have started earlier), its run counts.
struct CommitGraph {
    /// A walk's step from a commit the server knows no first parent of.
    struct Fallback: Hashable {
        var project: Int64
        /// The branch the walk follows where first parents are unknown; nil: it ends there.
        var branch: String?
        var commit: Int64
    }

    private(set) var shas: [Int64: String] = [:]
    private(set) var firstParents: [Int64: Int64] = [:]
    /// The branch's previous commit by id, as last read (nil: none).
    private(set) var fallbacks: [Fallback: Int64?] = [:]
    /// The commits known to have a usable run, by environment.
    private(set) var usable: [String: Set<Int64>] = [:]
    private var usableCount = 0

    var isEmpty: Bool { shas.isEmpty && fallbacks.isEmpty && usable.isEmpty }

    /// How many facts it holds (`ConnectionMemory.beginRead(session:)` forgets them all past
    /// `StoreTuning.commitGraphFacts`).
    var factCount: Int { shas.count + firstParents.count + fallbacks.count + usableCount }

    /// One thing a walk read (`ConnectionMemory.learn(_:)`).
    enum Fact {
        /// A commit's sha: a pending upload's placeholder is not kept.
        case sha(String, of: Int64)
        /// A commit's first parent, as the server has it.
        case firstParent(Int64, of: Int64)
        /// Where a walk goes on from a commit without a known first parent (nil: nowhere).
        case fallback(Fallback, goesTo: Int64?)
        /// That a commit has a usable run in an environment.
        case usableRun(at: Int64, environment: String)
    }

    mutating func learn(_ fact: Fact) {
        switch fact {
        case let .sha(sha, commit):
            guard !sha.isEmpty, !sha.hasPrefix(PendingUpload.placeholderPrefix) else { return }
            shas[commit] = sha
        case let .firstParent(parent, commit):
            // A fallback learned before the parent was uploaded stays, unused: a walk takes the parent first.
            firstParents[commit] = parent
        case let .fallback(fallback, previous):
            fallbacks[fallback] = .some(previous)
        case let .usableRun(commit, environment):
            if usable[environment, default: []].insert(commit).inserted { usableCount += 1 }
        }
    }

    /// Forgets everything: past `StoreTuning.commitGraphFacts`, or when the connection was reset
    /// (its database may not be the same one).
    mutating func forget() {
        shas = [:]
        firstParents = [:]
        fallbacks = [:]
        usable = [:]
        usableCount = 0
    }
}
