/// `POST /v1/projects/{project}/resolve`: which of the candidate commits (the merge-base first,
/// then its first-parent ancestors) is the nearest with an upload for the environment.
public struct ResolveRequest: Codable, Sendable, Hashable {
    public var environment: String
    /// Ordered nearest first; at most 1,000.
    public var candidates: [String]

    public init(environment: String, candidates: [String]) {
        self.environment = environment
        self.candidates = candidates
    }
}

/// The answer to a `ResolveRequest`: the base to compare with, or an explicit "no base".
public struct ResolveResponse: Codable, Sendable, Hashable {
    /// The first candidate with a usable (non-suspect) upload, if any.
    public var base: String?
    /// Its index in the candidate list: 0 is the merge-base itself.
    public var distance: Int?
    /// How many candidates were looked at.
    public var searched: Int

    public init(base: String?, distance: Int?, searched: Int) {
        self.base = base
        self.distance = distance
        self.searched = searched
    }
}
