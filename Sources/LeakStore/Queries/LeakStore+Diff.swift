import Foundation
import LeakReport

extension LeakStore {
    /// How many recent runs of the base branch are searched for keys that flipped.
    public static let flakyHistoryRuns = 20

    /// The first candidate commit with a usable (non-suspect) run in the environment.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func resolveBase(project: String, environment: String, candidates: [String]) throws -> ResolveResponse {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            for (distance, candidate) in candidates.enumerated() {
                let found = try db.scalarInt("""
                    SELECT 1 FROM commits c JOIN runs r ON r.commit_id = c.id
                    WHERE c.project_id = ? AND c.sha = ? AND r.environment = ? AND r.suspect = 0 LIMIT 1
                    """, [.integer(history.projectID), .text(candidate.lowercased()), .text(environment)])
                if found != nil {
                    return ResolveResponse(base: candidate.lowercased(), distance: distance, searched: distance + 1)
                }
            }
            return ResolveResponse(base: nil, distance: nil, searched: candidates.count)
        }
    }

    /// Classifies every leak key of the environment between two commits with `LeakDiff`.
    ///
    /// Suspect runs count on neither side. A commit with no usable runs is a side with
    /// `runs: 0` and no keys. Keys that flipped between leaked and clean in the last
    /// `flakyHistoryRuns` runs of the base's branch (up to the base) are flaky. Active
    /// suppressions of the project apply.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func diff(project: String, base: String, head: String, environment: String, now: Date = Date()) throws -> DiffResponse {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            let baseID = try history.commitID(base), headID = try history.commitID(head)
            let baseRuns = try baseID.map { try history.runCounts(commitID: $0, environment: environment).usable } ?? 0
            let headRuns = try headID.map { try history.runCounts(commitID: $0, environment: environment).usable } ?? 0
            let baseCounts = try baseID.map { try history.keyCounts(commitID: $0, environment: environment) } ?? []
            let headCounts = try headID.map { try history.keyCounts(commitID: $0, environment: environment) } ?? []
            let baseBranch = try baseID.flatMap { try history.branch(ofCommit: $0) }

            // Only keys that leaked, flaked or released late on a side can land in a category.
            let telling: Set<KeyState> = [.leaked, .flaky, .lateRelease]
            let interesting = Set((baseCounts + headCounts).filter { telling.contains($0.state) }.map(\.ids))
            var keysByIDs: [KeyIDs: LeakKey] = [:]
            for counts in baseCounts + headCounts where interesting.contains(counts.ids) { keysByIDs[counts.ids] = counts.key }

            func observations(_ commitID: Int64?, _ counts: [KeyCounts]) throws -> [LeakKey: KeyObservation] {
                guard let commitID else { return [:] }
                let wanted = counts.filter { interesting.contains($0.ids) }
                let details = try history.tellingChecks(commitID: commitID, environment: environment, keys: Set(wanted.map(\.ids)))
                var result: [LeakKey: KeyObservation] = [:]
                for counts in wanted {
                    var observation = details[counts.ids] ?? KeyObservation(state: counts.state, file: "", line: 0)
                    observation.state = counts.state
                    result[counts.key] = observation
                }
                return result
            }

            var flaky: Set<LeakKey> = []
            if let baseID, let baseBranch {
                flaky = Set(try flippedKeys(history, baseID: baseID, branch: baseBranch, environment: environment,
                                            among: interesting).compactMap { keysByIDs[$0] })
            }
            let suppressions = try suppressionRules(db, projectID: history.projectID)
            var diff = LeakDiff(base: try observations(baseID, baseCounts), head: try observations(headID, headCounts),
                                flakyKeys: flaky, suppressions: suppressions, now: now)
            if let baseBranch {
                let idsByKey = Dictionary(keysByIDs.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
                for index in diff.entries.indices where [.new, .persisting].contains(diff.entries[index].category) {
                    guard let ids = idsByKey[diff.entries[index].key] else { continue }
                    diff.entries[index].firstSeen = try history.firstLeaking(
                        typeID: ids.typeID, scenarioID: ids.scenarioID, environment: environment, branch: baseBranch)
                }
            }
            return DiffResponse(project: project, environment: environment,
                                base: DiffResponse.Side(commit: base.lowercased(), runs: baseRuns),
                                head: .init(commit: head.lowercased(), runs: headRuns), diff: diff)
        }
    }

    /// Keys among `keys` that were leaked at one commit and clean at another (or flaky at one)
    /// across the commits of the last `flakyHistoryRuns` usable runs of `branch`, up to the base.
    private func flippedKeys(_ history: ProjectHistory, baseID: Int64, branch: String, environment: String,
                             among keys: Set<KeyIDs>) throws -> Set<KeyIDs> {
        guard !keys.isEmpty, let newestRun = try history.db.scalarInt(
            "SELECT max(id) FROM runs WHERE commit_id = ? AND environment = ?", [.integer(baseID), .text(environment)])
        else { return [] }
        var commitIDs: [Int64] = []
        try history.db.query("""
            SELECT DISTINCT commit_id FROM (
                SELECT commit_id FROM runs
                WHERE project_id = ? AND environment = ? AND branch = ? AND suspect = 0 AND id <= ?
                ORDER BY id DESC LIMIT ?)
            """, [.integer(history.projectID), .text(environment), .text(branch), .integer(newestRun),
                  .integer(Int64(Self.flakyHistoryRuns))]) { commitIDs.append($0.int64(at: 0)) }
        var leaked: Set<KeyIDs> = [], clean: Set<KeyIDs> = [], flipped: Set<KeyIDs> = []
        for commitID in commitIDs {
            for counts in try history.keyCounts(commitID: commitID, environment: environment) where keys.contains(counts.ids) {
                switch counts.state {
                case .leaked: leaked.insert(counts.ids)
                case .clean, .lateRelease: clean.insert(counts.ids)
                case .flaky: flipped.insert(counts.ids)
                case .error: break
                }
            }
        }
        return flipped.union(leaked.intersection(clean))
    }
}
