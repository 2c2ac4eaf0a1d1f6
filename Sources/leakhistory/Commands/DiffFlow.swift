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
        guard let mergeBase = try repository.mergeBase(baseCommit, headCommit) else {
            throw CommandFailure("\(baseRevision) and \(String(headCommit.prefix(10))) share no history in \(repository.directory); there is nothing to compare with.", code: .usage)
        }
        let candidates = try repository.firstParentLine(from: mergeBase, limit: depth)
        let resolved = try await client.resolve(ResolveRequest(environment: environment, candidates: candidates))
        guard let base = resolved.base, let distance = resolved.distance else {
            return DiffOutcome(environment: environment, base: nil, head: headCommit, diff: LeakDiff(entries: []),
                               strict: strict, ifNoBase: ifNoBase,
                               dashboardURL: client.settings.diffPage(base: mergeBase, head: headCommit),
                               repositoryRoot: repository.directory)
        }
        let answer = try await client.diff(base: base, head: headCommit)
        guard answer.head.runs > 0 else {
            throw CommandFailure(
                "Nothing is uploaded for head \(String(headCommit.prefix(10))) in environment '\(environment)'. Upload its reports first (leakhistory upload), or use leakhistory check, which uploads and compares.",
                code: .usage)
        }
        return DiffOutcome(
            environment: environment,
            base: DiffOutcome.BaseChoice(commit: base, distance: distance, mergeBase: mergeBase),
            head: headCommit, diff: answer.diff, strict: strict, ifNoBase: ifNoBase,
            dashboardURL: client.settings.diffPage(base: base, head: headCommit), repositoryRoot: repository.directory)
    }
}
