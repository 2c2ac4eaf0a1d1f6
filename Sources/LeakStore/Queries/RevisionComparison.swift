/// Two revisions as a person types them (`main`, `feature/login`, `3f2a9c1`, a full id),
/// resolved the way the CLI resolves them with git, but from what the server knows: the
/// uploaded commits, their branches and their parents.
public struct RevisionComparison: Sendable, Hashable {
    /// How a revision was matched.
    public enum Match: Sendable, Hashable {
        /// A full 40-digit commit id, taken as it is.
        case commit
        /// A branch name: its newest uploaded commit.
        case branch(String)
        /// A unique prefix of an uploaded commit's id.
        case prefix
    }

    /// What a revision turned out to be.
    public enum Resolution: Sendable, Hashable {
        case found(commit: String, match: Match)
        /// A prefix of several uploaded commits (up to a few of them).
        case ambiguous([String])
        /// Neither a branch nor a prefix of an uploaded commit.
        case unknown
    }

    public var base: Resolution
    public var head: Resolution
    /// The nearest common ancestor along the uploaded commits' parents; nil when the known
    /// history has none (then the base itself stands in).
    public var mergeBase: String?
    /// The commit compared with: the merge-base or its nearest first-parent ancestor with a
    /// usable run in the environment; nil when none has one.
    public var compared: String?
    /// First-parent steps from the merge-base (or the base) to `compared`.
    public var distance: Int?
    /// True when the head is on the base branch itself (the merge-base is the head): the change
    /// is the head's own, and `compared` starts from its first parent.
    public var onBaseBranch = false
    /// The base branch's nearest usable upload after the merge-base, when the base fell back
    /// (`distance > 0`): it tells an inherited leak from a new one.
    public var after: String?
}

extension RevisionComparison.Resolution {
    /// The commit, when the revision was found.
    public var commit: String? {
        if case let .found(commit, _) = self { return commit }
        return nil
    }
}
