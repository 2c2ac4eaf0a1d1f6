/// The flaky rule: whether a key's history along lines of commits is evidence of an
/// intermittent leak rather than of changes of state.
///
/// ```swift
/// Intermittence.shows([.clean, .leaked, .clean, .leaked])     // true: a one-commit leak between clean ones
/// Intermittence.shows([.leaked, .leaked, .clean, .clean, .clean, .leaked])  // false: fixed, stayed fixed, came back
/// let evidence = Intermittence.evidence(mainLine) + Intermittence.evidence(mergedBranch: …)
/// evidence.showsIntermittence(headHeld: Intermittence.leakHeld(ownLine))
/// ```
public enum Intermittence {
    /// A leak seen at this many commits in a row was a real leak: its end is a fix, not
    /// intermittence. (A leak that shows in a fraction of runs mostly shows at one commit.)
    public static let leakHeldCommits = 2
    /// A fix that held for this many commits in a row was a real fix: a leak coming back after
    /// it is new (a regression), not intermittence.
    public static let fixHeldCommits = 3
    /// After a leak that held this many commits in a row, a fix that held two commits is real
    /// too: a key that leaks in nearly every run is clean at one commit now and then, hardly ever
    /// at two in a row.
    public static let longLeakCommits = 10

    /// A single episode (a brief leak or a brief clean spell) counts only when it was this
    /// recent (checked commits from the end of the line); further back it takes two. A leak that
    /// shows in 5% of runs comes back well within it, while one stable leak seen at one commit
    /// long ago is not evidence enough.
    public static let recentCommits = 100

    /// What lines of a key's history say about intermittence.
    public struct Evidence: Sendable, Hashable {
        /// Runs at one commit disagreed.
        public var disagreed = false
        /// Episodes: a leak at fewer than `leakHeldCommits` commits between clean ones, a clean
        /// spell between leaks shorter than a fix holds, a merged branch whose leak the merge lost.
        public var episodes = 0
        /// Of them, those within `recentCommits` of the line's end.
        public var recentEpisodes = 0

        public init(disagreed: Bool = false, episodes: Int = 0, recentEpisodes: Int = 0) {
            self.disagreed = disagreed
            self.episodes = episodes
            self.recentEpisodes = recentEpisodes
        }

        public static func + (a: Evidence, b: Evidence) -> Evidence {
            Evidence(disagreed: a.disagreed || b.disagreed, episodes: a.episodes + b.episodes,
                     recentEpisodes: a.recentEpisodes + b.recentEpisodes)
        }

        /// Runs that disagreed, two episodes, or one recent one — unless `headHeld`: the head's
        /// leak has held `leakHeldCommits` commits along its own line, which a key leaking in a
        /// fraction of runs hardly does, so one episode does not outweigh it.
        public func showsIntermittence(headHeld: Bool = false) -> Bool {
            disagreed || episodes >= 2 || (recentEpisodes >= 1 && !headHeld)
        }
    }

    /// True when the line alone shows intermittence (`evidence(_:fromStart:)`, `showsIntermittence()`).
    public static func shows<S: Sequence>(_ line: S, fromStart: Bool = false) -> Bool where S.Element == KeyState? {
        evidence(line, fromStart: fromStart).showsIntermittence()
    }

    /// The episodes of a line (oldest first; nil where a commit did not check the key): a commit
    /// whose runs disagreed, a clean spell between leaks shorter than a fix holds
    /// (`fixHeldCommits`, or 2 after a leak of `longLeakCommits`), a leak at fewer than
    /// `leakHeldCommits` commits between clean ones. Commits that only errored are skipped.
    /// - Parameter fromStart: the line begins where the key's history does (nothing older was
    ///   uploaded), so a leak at its first checked commit that is clean at the next was seen at
    ///   one commit too: it counts as a brief leak.
    public static func evidence<S: Sequence>(_ line: S, fromStart: Bool = false) -> Evidence where S.Element == KeyState? {
        evidence(Array(line), fromStart: fromStart)
    }

    /// `evidence(_:fromStart:)` of an array: what a diff calls for every leaking key, without the
    /// generic sequence's cost per state.
    public static func evidence(_ line: [KeyState?], fromStart: Bool = false) -> Evidence {
        let states = checked(line)
        var evidence = Evidence(disagreed: states.contains(nil))
        var current: Bool?          // leaking in the current stretch?
        var length = 0
        var bounded = false         // the current stretch has the other state (or the history's start) before it
        var previousLength = 0      // the length of the stretch before the current one
        for (position, state) in states.enumerated() {
            guard let leaking = state else { continue }
            if leaking == current {
                length += 1
                continue
            }
            if let wasLeaking = current, bounded || (fromStart && wasLeaking && previousLength == 0) {
                let brief = wasLeaking
                    ? length < leakHeldCommits
                    : length < (previousLength >= longLeakCommits ? 2 : fixHeldCommits)
                if brief {
                    evidence.episodes += 1
                    if states.count - position <= recentCommits { evidence.recentEpisodes += 1 }
                }
            }
            bounded = current != nil
            previousLength = current == nil ? 0 : length
            current = leaking
            length = 1
        }
        return evidence
    }

    /// A merged branch that lost its leak in the merge — the merge-base was clean, the branch's
    /// tip (the merge's second parent) leaked, and the merge itself is clean — is one episode:
    /// a leak the branch brought in is in the merge too. (Unlike a branch commit that leaks and a
    /// later one that does not, which is mostly a fix.) `recent` as the merge is.
    public static func evidence(mergedBranch mergeBase: KeyState?, tip: KeyState?, merge: KeyState?, recent: Bool) -> Evidence {
        // Called for every merged branch of every leaking key: no set is built.
        func released(_ state: KeyState?) -> Bool { state == .clean || state == .lateRelease }
        guard released(mergeBase), released(merge), tip == .leaked || tip == .flaky else { return Evidence() }
        return Evidence(episodes: 1, recentEpisodes: recent ? 1 : 0)
    }

    /// True when the line (oldest first) ends in a leak seen at `leakHeldCommits` checked
    /// commits in a row or more.
    public static func leakHeld<S: Sequence>(_ line: S) -> Bool where S.Element == KeyState? {
        leakHeld(Array(line))
    }

    /// `leakHeld(_:)` of an array.
    public static func leakHeld(_ line: [KeyState?]) -> Bool {
        let states = checked(line)
        return states.reversed().prefix { $0 == true }.count >= leakHeldCommits
    }

    /// Leaking or not at each commit that checked the key; nil where its runs disagreed.
    private static func checked(_ line: [KeyState?]) -> [Bool?] {
        line.compactMap { state -> Bool?? in
            switch state {
            case .flaky?: .some(nil)
            case .leaked?: true
            case .clean?, .lateRelease?: false
            case .error?, nil: nil
            }
        }
    }
}
