import Foundation
import LeakReport

extension LeakStore {
    /// How many usable commits of the base's first-parent line the gate measures a key's rate
    /// over: long enough to see a leak that shows in 5% of runs a dozen times.
    public static let flakyWindowCommits = 400
    /// How many usable first-parent ancestors of the base may stand in for a key the base did
    /// not check, or whose check there errored.
    public static let fallbackCommits = 100
    /// How many usable commits of the head's own line (a pull request's earlier commits, or the
    /// branch a merge brings in) the gate reads too.
    public static let ownLineCommits = 50
    /// How far back along the head's first parents `firstSeen` looks.
    public static let firstSeenCommits = 200

    /// The index of the first candidate commit with a usable (non-suspect) run in the
    /// environment; nil when none has one.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func resolveBase(project: String, environment: String, candidates: [String]) throws -> Int? {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            let shas = candidates.map { $0.lowercased() }
            // A batch a statement, nearest candidates first (a client sends its first parents in
            // order, so the first batch usually holds the answer): one round trip, not one a
            // candidate.
            for batch in shas.batches(of: StoreTuning.candidatesPerStatement) {
                var usable = Set<String>()
                try db.query(Self.resolveSQL, [.integer(history.projectID), .text(environment)]
                             + batch.padded(to: StoreTuning.candidatesPerStatement).map(SQLValue.text)) {
                    usable.insert($0.string(at: 0) ?? "")
                }
                if let found = batch.firstIndex(where: usable.contains) { return found }
            }
            return nil
        }
    }

    /// Built once: the same text for every batch (padded to `StoreTuning.candidatesPerStatement` candidates).
    private static let resolveSQL = """
        SELECT c.sha FROM commits c
        WHERE c.project_id = ?1 AND c.sha IN (\((3..<(3 + StoreTuning.candidatesPerStatement)).map { "?\($0)" }.joined(separator: ", ")))
          AND EXISTS (SELECT 1 FROM runs r WHERE r.commit_id = c.id AND r.environment = ?2 AND r.suspect = 0)
        """

    /// Classifies every leak key of the environment between two commits with `LeakDiff`, in
    /// one read snapshot.
    ///
    /// - The base counts only its usable runs (a suspect run is never a base); the head counts
    ///   every run, and lists its suspect runs.
    /// - A key that leaks at head and that the base did not check (or only errored on) takes its
    ///   state from the nearest of `fallbackCommits` usable first-parent ancestors of the base
    ///   that checked it (`baseStateFrom`).
    /// - A key that leaked (or flaked) at head and not at base is judged by `GateRule` (new or
    ///   flaky, with the evidence on its entry) from its runs and attempts at head and its runs
    ///   along the head's ancestry: the base's first-parent line of `flakyWindowCommits` usable
    ///   commits, and the head's own line of `ownLineCommits` (a pull request's earlier commits, or
    ///   what a merge brings in) — `ProjectHistory.keyEvidence`.
    /// - `after`, the base branch's nearest upload after `mergeBase`: a would-be-new key that
    ///   leaks there is inherited when the base's data ran out — the base is not the merge-base
    ///   (it fell back past commits without uploads; assumed when `mergeBase` is not given), or
    ///   the base did not check the key.
    /// - `firstSeen`: where the head's current leaking stretch began along its first parents.
    /// - Without a base, every leak at head is `unverified`.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func diff(project: String, base: String?, head: String, environment: String, mergeBase: String?,
                     after: String?, now: Date) throws -> CommitDiff {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            // Every commit the diff names, in one round trip.
            try history.readCommits([head] + [base, after].compactMap { $0 }, environment: environment)
            let headID = try history.commitID(head, environment: environment)
            let headRuns = try headID.map { try history.runCounts(commitID: $0, environment: environment) } ?? (usable: 0, suspect: 0)
            let suspectRuns = try headID.map {
                headRuns.suspect > 0 ? try history.suspectRuns(commitID: $0, environment: environment) : []
            } ?? []
            let headSide = CommitDiff.Side(commit: head.lowercased(), runs: headRuns.usable + headRuns.suspect,
                                           suspectRuns: suspectRuns)
            // Only keys that leaked, flaked or released late on a side can land in a category: those
            // of each side, with their counts on the other side (`tellingCounts`).
            guard let base else {
                let headCounts = try history.tellingCounts(head: headID, base: nil, environment: environment).head
                let keys = Set(headCounts.map(\.ids))
                let observations = try Self.observations(history, headID, headCounts, environment: environment,
                                                         wanted: keys, detailed: keys, includingSuspect: true)
                var diff = LeakDiff(unverifiedHead: Dictionary(observations.byKey.map { (observations.names[$0.key]!, $0.value) },
                                                               uniquingKeysWith: { first, _ in first }))
                let idsOf = Dictionary(observations.names.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
                try annotateFirstSeen(&diff, history, headID: headID, ids: diff.entries.map { idsOf[$0.key]! },
                                      environment: environment)
                return CommitDiff(base: nil, head: headSide, leaks: diff)
            }

            let baseID = try history.commitID(base, environment: environment)
            let baseRuns = try baseID.map { try history.runCounts(commitID: $0, environment: environment).usable } ?? 0
            let counts = try history.tellingCounts(head: headID, base: baseID, environment: environment)
            let headCounts = counts.head
            var baseCounts = counts.base
            let interesting = Set(headCounts.map(\.ids)).union(baseCounts.map(\.ids))
            let leakingAtHead = Set(headCounts.filter { $0.state == .leaked || $0.state == .flaky }.map(\.ids))

            // The base's first-parent line: the fallback for keys it did not check, and the window
            // the gate measures a key's rate over.
            let baseBranch = try baseID.flatMap { try history.branch(ofCommit: $0) }
            let baseLine = try baseID.map {
                try history.firstParentLine(from: $0, branch: baseBranch, environment: environment, limit: Self.flakyWindowCommits)
            } ?? []
            var baseStateFrom: [KeyIDs: String] = [:]
            let checkedAtBase = Dictionary(baseCounts.map { ($0.ids, $0.state) }, uniquingKeysWith: { first, _ in first })
            // The head's own line: what a merge brings in (its second parent), else the head's first
            // parent when that is not the base (a pull request's earlier commits); newest first, up
            // to where it joins the base's line.
            var ownLine: [BranchCommit] = []
            if let headID, let start = try history.parent(of: headID, position: 1) ?? history.parent(of: headID, position: 0),
               start != baseID {
                let onBaseLine = Set(baseLine.map(\.id))
                ownLine = try history.firstParentLine(from: start, branch: nil, environment: environment, limit: Self.ownLineCommits)
                    .prefix { !onBaseLine.contains($0.id) }.map { $0 }
            }
            let headCountsByKey = Dictionary(headCounts.map { ($0.ids, $0) }, uniquingKeysWith: { first, _ in first })
            let headStates = headCountsByKey.mapValues(\.state)
            // Only a key the base did not check (or only errored on) looks back for a stand-in state.
            let standingIn = leakingAtHead.filter { checkedAtBase[$0] == nil || checkedAtBase[$0] == .error }
            // A key the base did not check takes the state of the nearest ancestor that did.
            let standIns = try history.nearestCheckedStates(standingIn, along: Array(baseLine.prefix(Self.fallbackCommits)),
                                                            environment: environment)
            let fromAncestors = standIns.filter { $0.value.position > 0 }
            if !fromAncestors.isEmpty {
                // Each base count a stand-in replaces goes in one pass (a suspect head's 155 stand-ins
                // each searched the head's and the base's few hundred counts).
                baseCounts.removeAll { fromAncestors[$0.ids] != nil }
                for (ids, standIn) in fromAncestors {
                    baseStateFrom[ids] = baseLine[standIn.position].sha
                    let name = headCountsByKey[ids]!
                    baseCounts.append(KeyCounts(KeyTally(standingFor: standIn.state), named: name))
                }
            }
            let baseStates = Dictionary(baseCounts.map { ($0.ids, $0.state) }, uniquingKeysWith: { first, _ in first })
            // What the gate knows of each key it judges (`LeakDiff.isJudged`): its runs and attempts
            // at head, its runs along the head's ancestry (`ProjectHistory.keyEvidence`).
            // A base leak some attempt there released does not hide the head's (`LeakDiff.isJudged`).
            let releasedAtBase = try baseID.map {
                try history.releasedAttempts(commitID: $0, environment: environment,
                                             keys: leakingAtHead.filter { baseStates[$0] == .leaked && baseStateFrom[$0] == nil })
            } ?? [:]
            let judged = leakingAtHead.filter {
                LeakDiff.isJudged(before: baseStates[$0], after: headStates[$0], baseConfirmed: releasedAtBase[$0] == nil)
            }
            let evidence = try history.keyEvidence(head: headCountsByKey.filter { judged.contains($0.key) }, headID: headID,
                                                   ownLine: ownLine, baseLine: baseLine, releasedAtBase: releasedAtBase,
                                                   environment: environment)

            var inheritedFrom: [KeyIDs: String] = [:]
            if let after, let afterID = try history.commitID(after, environment: environment),
               try history.runCounts(commitID: afterID, environment: environment).usable > 0 {
                // Only where the base's data ran out: the whole base fell back past the merge-base,
                // or the base did not check the key (or only errored on it).
                let baseFellBack = mergeBase.map { $0.lowercased() != base.lowercased() } ?? true
                let states = try history.keyCounts(commitID: afterID, environment: environment, having: .leaking)
                for counts in states where leakingAtHead.contains(counts.ids) && (counts.state == .leaked || counts.state == .flaky)
                    && (baseFellBack || checkedAtBase[counts.ids] == nil || checkedAtBase[counts.ids] == .error) {
                    inheritedFrom[counts.ids] = after.lowercased()
                }
            }

            // Each side's checks only for the entries that show them (`LeakDiff.showsBaseCheck`): of a
            // key the head has and the base passed on, the base's state alone (its site was a few
            // seeks a key: a head whose broken run leaked 300 keys).
            let shownFromBase = interesting.filter { LeakDiff.showsBaseCheck(before: baseStates[$0], after: headStates[$0]) }
            let baseObservations = try Self.observations(history, baseID, baseCounts, environment: environment,
                                                         wanted: interesting, detailed: shownFromBase, includingSuspect: false)
            let headObservations = try Self.observations(history, headID, headCounts, environment: environment,
                                                         wanted: interesting, detailed: interesting.subtracting(shownFromBase),
                                                         includingSuspect: true)
            var names = baseObservations.names
            names.merge(headObservations.names) { first, _ in first }
            let keys = Array(Set(baseObservations.byKey.keys).union(headObservations.byKey.keys))
            let comparisons = keys.map {
                LeakDiff.KeyComparison(key: names[$0]!, base: baseObservations.byKey[$0], head: headObservations.byKey[$0],
                                       evidence: evidence[$0], inheritedFrom: inheritedFrom[$0], baseConfirmed: releasedAtBase[$0] == nil)
            }
            var (diff, sources) = LeakDiff.classify(comparisons, suppressions: try suppressionRules(db, projectID: history.projectID),
                                                    now: now)
            let entryIDs = sources.map { keys[$0] }
            for (index, ids) in entryIDs.enumerated() {
                if let sha = baseStateFrom[ids] { diff.entries[index].baseStateFrom = sha }
            }
            try annotateFirstSeen(&diff, history, headID: headID, ids: entryIDs, environment: environment)
            return CommitDiff(base: CommitDiff.Side(commit: base.lowercased(), runs: baseRuns), head: headSide, leaks: diff)
        }
    }

    /// The observations of the wanted keys at a commit, by their ids, with each key's name; the
    /// check (file, line, fingerprint, …) of the `detailed` ones, the state alone of the others.
    /// Keyed by ids, not `LeakKey`: a diff's few hundred keys hashed as integers, not as names.
    private static func observations(_ history: ProjectHistory, _ commitID: Int64?, _ counts: [KeyCounts], environment: String,
                                     wanted: Set<KeyIDs>, detailed: Set<KeyIDs>, includingSuspect: Bool) throws
        -> (byKey: [KeyIDs: KeyObservation], names: [KeyIDs: LeakKey])
    {
        let chosen = counts.filter { wanted.contains($0.ids) }
        let details = try commitID.map {
            try history.tellingChecks(commitID: $0, environment: environment,
                                      keys: Set(chosen.lazy.map(\.ids).filter(detailed.contains)), includingSuspect: includingSuspect)
        } ?? [:]
        var byKey: [KeyIDs: KeyObservation] = [:], names: [KeyIDs: LeakKey] = [:]
        byKey.reserveCapacity(chosen.count)
        names.reserveCapacity(chosen.count)
        for counts in chosen {
            var observation = details[counts.ids] ?? KeyObservation(state: counts.state, file: "", line: 0)
            observation.state = counts.state
            byKey[counts.ids] = observation
            names[counts.ids] = counts.key
        }
        return (byKey, names)
    }

    /// Sets `firstSeen` on each entry that leaks at head: the oldest commit of the leaking
    /// stretch that ends at the head, along the head's first parents (usable commits; the head
    /// itself counts whatever its runs). `ids`: each entry's key ids, in the entries' order.
    private func annotateFirstSeen(_ diff: inout LeakDiff, _ history: ProjectHistory, headID: Int64?,
                                   ids: [KeyIDs], environment: String) throws {
        guard let headID else { return }
        let leakingCategories: Set<LeakDiff.Category> = [.new, .persisting, .inherited, .known, .unverified, .suppressed]
        guard diff.entries.contains(where: { leakingCategories.contains($0.category) }) else { return }
        let headSha = try history.commitPoint(headID, environment: environment).sha
        var line = try history.firstParentLine(from: headID, branch: nil, environment: environment, limit: Self.firstSeenCommits)
        if line.first?.id != headID { line.insert(BranchCommit(id: headID, sha: headSha, at: nil), at: 0) }
        let leaking = diff.entries.indices.filter { leakingCategories.contains(diff.entries[$0].category) }
        let since = try history.leakingSince(Set(leaking.map { ids[$0] }), along: line, environment: environment,
                                             allRunsAt: headID)
        for index in leaking {
            diff.entries[index].firstSeen = since[ids[index]]
        }
    }
}
