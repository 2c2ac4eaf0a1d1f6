import LeakReport

/// The comparison `diff` and `check` share: find the base from git and the server, then ask
/// the server for the diff.
struct DiffFlow: Sendable {
    var client: LeakHistoryClient
    var repository: GitRepository
    /// How many first-parent ancestors of the merge-base may stand in for it.
    var depth: Int
    var strict: Bool
    var ifNoBase: String

    func compare(baseRevision: String, headCommit: String) async throws(CommandFailure) -> DiffOutcome {
        // A CI clone often has only the remote's branch: main falls back to origin/main.
        let baseCommit: String
        do {
            baseCommit = try repository.commit(baseRevision)
        } catch {
            guard !baseRevision.contains("/"), let remote = try? repository.commit("origin/\(baseRevision)") else { throw error }
            baseCommit = remote
        }
        let environment = client.settings.environment
        guard var mergeBase = try repository.mergeBase(baseCommit, headCommit) else {
            throw CommandFailure("\(baseRevision) and \(String(headCommit.prefix(10))) share no history in \(repository.directory); there is nothing to compare with.", code: .usage)
        }
        // On the base branch itself (a push to main), the change is HEAD's own: compare with its first parent.
        let onBaseBranch = mergeBase == headCommit
        if onBaseBranch {
            guard let parent = repository.parents(of: headCommit).first else {
                return try await noBase(environment: environment, headCommit: headCommit, near: headCommit)
            }
            mergeBase = parent
        }
        let candidates = try repository.firstParentLine(from: mergeBase, limit: depth)
        let resolved = try await client.resolve(ResolveRequest(environment: environment, candidates: candidates))
        guard let base = resolved.base, let distance = resolved.distance else {
            return try await noBase(environment: environment, headCommit: headCommit, near: mergeBase)
        }
        // A pull request: the base branch's nearest upload after the merge-base tells a leak that
        // came in with commits without data (where the base's data ran out) from one this change
        // brings in.
        var after: String?
        if !onBaseBranch, baseCommit != mergeBase {
            let later = try repository.firstParentCommits(of: baseCommit, after: mergeBase, limit: depth)
            if !later.isEmpty {
                after = try await client.resolve(ResolveRequest(environment: environment, candidates: later)).base
            }
        }
        // Nothing uploaded after the merge-base, and the base fell back past commits without data:
        // the branches those commits merged show what they brought in (their newest upload).
        if !onBaseBranch, after == nil, base != mergeBase {
            let merged = try repository.commits(of: mergeBase, notIn: base, limit: depth)
            if !merged.isEmpty {
                after = try await client.resolve(ResolveRequest(environment: environment, candidates: merged)).base
            }
        }
        let answer = try await client.diff(base: base, head: headCommit, mergeBase: onBaseBranch ? nil : mergeBase,
                                           after: after)
        try requireHeadRuns(answer, environment: environment, headCommit: headCommit)
        return DiffOutcome(
            environment: environment,
            base: DiffOutcome.BaseChoice(commit: base, distance: distance, mergeBase: mergeBase, after: after,
                                         onBaseBranch: onBaseBranch ? true : nil),
            head: headCommit, diff: answer.diff, strict: strict, ifNoBase: ifNoBase,
            suspectRuns: answer.head.suspectRuns ?? [],
            dashboardURL: client.settings.diffPage(base: base, head: headCommit), repositoryRoot: repository.directory)
    }

    /// No ancestor has data: the head's leaks, unverified (none when the head has no upload either).
    /// The dashboard link names `near` (the merge-base) as the base, where the page says the same.
    private func noBase(environment: String, headCommit: String, near: String) async throws(CommandFailure) -> DiffOutcome {
        let answer = try await client.diff(base: nil, head: headCommit)
        return DiffOutcome(environment: environment, base: nil, head: headCommit, diff: answer.diff,
                           strict: strict, ifNoBase: ifNoBase, suspectRuns: answer.head.suspectRuns ?? [],
                           dashboardURL: client.settings.diffPage(base: near, head: headCommit),
                           repositoryRoot: repository.directory)
    }

    private func requireHeadRuns(_ answer: DiffResponse, environment: String, headCommit: String) throws(CommandFailure) {
        guard answer.head.runs > 0 else {
            throw CommandFailure(
                "Nothing is uploaded for head \(String(headCommit.prefix(10))) in environment '\(environment)'. Upload its reports first (leakhistory upload), or use leakhistory check, which uploads and compares.",
                code: .usage)
        }
    }
}
