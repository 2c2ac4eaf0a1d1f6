import Foundation
import LeakReport

extension LeakStore {
    /// How many usable commits of the base's first-parent line the flaky window looks at: long
    /// enough to see a leak that shows in 5% of runs a dozen times.
    public static let flakyWindowCommits = 400
    /// How many usable first-parent ancestors of the base may stand in for a key the base did
    /// not check, or whose check there errored.
    public static let fallbackCommits = 100
    /// How many usable commits of the head's own line (a pull request's earlier commits, or the
    /// branch a merge brings in) count as evidence of intermittence too.
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
    /// - A key that leaks at head is flaky when its history shows intermittence (`Intermittence`):
    ///   episodes along the head's ancestry (the base's first-parent line of `flakyWindowCommits`
    ///   usable commits, then a pull request's earlier commits, then the head's leak; a line that
    ///   reaches the project's first upload starts the key's history), along what a merge head
    ///   brings in (its second parent's line of `ownLineCommits`), along the base branch after the
    ///   base up to `tip` (its newest upload, when given), and branches merged into that window
    ///   whose merge lost their leak. Two episodes, or one recent one unless the head's leak has
    ///   held along its own line. A leak that was fixed and stayed fixed, then comes back, is new.
    /// - `after`, the base branch's nearest upload after `mergeBase`: a would-be-new key that
    ///   leaks there is inherited when the base's data ran out — the base is not the merge-base
    ///   (it fell back past commits without uploads; assumed when `mergeBase` is not given), or
    ///   the base did not check the key.
    /// - `firstSeen`: where the head's current leaking stretch began along its first parents.
    /// - Without a base, every leak at head is `unverified`.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func diff(project: String, base: String?, head: String, environment: String, mergeBase: String?,
                     after: String?, tip: String?, now: Date) throws -> CommitDiff {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            // Every commit the diff names, in one round trip.
            try history.readCommits([head] + [base, tip, after].compactMap { $0 }, environment: environment)
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

            // The base's first-parent line: the fallback for keys it did not check, and the flaky
            // window — from the base branch's newest upload when the client named it.
            let baseBranch = try baseID.flatMap { try history.branch(ofCommit: $0) }
            let baseLine = try baseID.map {
                try history.firstParentLine(from: $0, branch: baseBranch, environment: environment, limit: Self.flakyWindowCommits)
            } ?? []
            var windowLine = baseLine
            if let tip, let tipID = try history.commitID(tip, environment: environment), tipID != baseID {
                windowLine = try history.firstParentLine(from: tipID, branch: baseBranch, environment: environment,
                                                         limit: Self.flakyWindowCommits)
            }
            var baseStateFrom: [KeyIDs: String] = [:]
            var flaky: Set<KeyIDs> = []
            let checkedAtBase = Dictionary(baseCounts.map { ($0.ids, $0.state) }, uniquingKeysWith: { first, _ in first })
            // The head's own line: what a merge brings in (its second parent), else the head's first
            // parent when that is not the base (a pull request's earlier commits).
            let headIsMerge = try headID.map { try history.parent(of: $0, position: 1) != nil } ?? false
            var ownLine: [BranchCommit] = []
            if let headID, let start = try history.parent(of: headID, position: 1) ?? history.parent(of: headID, position: 0),
               start != baseID {
                ownLine = try history.firstParentLine(from: start, branch: nil, environment: environment, limit: Self.ownLineCommits)
            }
            // The lines the head's leak is judged along, oldest first. The head's ancestry: the base's
            // line, then (not for a merge) the pull request's earlier commits, then the head's leak.
            let onBaseLine = Set(baseLine.map(\.id))
            // The head's own commits: a pull request's earlier ones, or those a merge brings in.
            let ownPart = Array(ownLine.prefix { !onBaseLine.contains($0.id) }.reversed())
            let ancestry = baseLine.reversed() + (headIsMerge ? [] : ownPart)
            // What a merge brings in, then the head's leak.
            let mergedIn = headIsMerge ? Array(ownLine.reversed()) : []
            // The base branch after the base, up to its newest upload (not the head's ancestry: no head
            // leak after it), from the base on.
            let onWindow = Set(windowLine.map(\.id))
            let later = windowLine.prefix { !onBaseLine.contains($0.id) }.reversed() as [BranchCommit]
            let afterBase = later.isEmpty ? [] : Array(baseLine.prefix(1)) + later
            // The branches merged into the window: a merge that lost its branch's leak is evidence too.
            let merged = try history.mergedBranches(into: windowLine, steps: Self.ownLineCommits)
            let recentMerges = Set(windowLine.prefix(Intermittence.recentCommits).map(\.id))
            let linesIDs = onBaseLine.union(onWindow).union(ownLine.map(\.id)).union(merged.flatMap { [$0.tip, $0.mergeBase] })
            // Only a key that leaked at head is judged along the lines: one that flaked there is flaky
            // whatever its history (`LeakDiff.category`). Only a key the base did not check (or only
            // errored on) looks back for a stand-in state. A head whose broken run leaked every key
            // beside a clean re-run reads no history for them.
            let headStates = Dictionary(headCounts.map { ($0.ids, $0.state) }, uniquingKeysWith: { first, _ in first })
            let judged = leakingAtHead.filter { headStates[$0] == .leaked }
            let standingIn = leakingAtHead.filter { checkedAtBase[$0] == nil || checkedAtBase[$0] == .error }
            // A key the base did not check takes the state of the nearest ancestor that did.
            let standIns = try history.nearestCheckedStates(standingIn, along: Array(baseLine.prefix(Self.fallbackCommits)),
                                                            environment: environment)
            let fromAncestors = standIns.filter { $0.value.position > 0 }
            if !fromAncestors.isEmpty {
                // Each base count a stand-in replaces goes in one pass (a suspect head's 155 stand-ins
                // each searched the head's and the base's few hundred counts).
                let namesAtHead = Dictionary(headCounts.map { ($0.ids, $0) }, uniquingKeysWith: { first, _ in first })
                baseCounts.removeAll { fromAncestors[$0.ids] != nil }
                for (ids, standIn) in fromAncestors {
                    baseStateFrom[ids] = baseLine[standIn.position].sha
                    let name = namesAtHead[ids]!
                    baseCounts.append(KeyCounts(KeyTally(standingFor: standIn.state), named: name))
                }
            }
            // Only a key that leaked somewhere along the lines can have intermittent history.
            let (withHistory, lineStates) = try history.leakingKeyStates(judged, environment: environment, at: linesIDs)
            // Each line's columns, found once for all keys.
            let ancestryColumns = lineStates.columns(of: ancestry.map(\.id))
            let afterBaseColumns = lineStates.columns(of: afterBase.map(\.id)), mergedInColumns = lineStates.columns(of: mergedIn.map(\.id))
            let ownPartColumns = lineStates.columns(of: ownPart.map(\.id))
            let mergedColumns = merged.map { (mergeBase: lineStates.column(of: $0.mergeBase), tip: lineStates.column(of: $0.tip),
                                              merge: lineStates.column(of: $0.merge), recent: recentMerges.contains($0.merge)) }
            for ids in withHistory {
                let states = lineStates.row(ids)
                // The head's own leak ends the head's lines: a brief clean spell between leaks is intermittence.
                let ancestryStates = states.along(ancestryColumns) + [.leaked]
                let mergedInStates = states.along(mergedInColumns) + [.leaked]
                var evidence = Intermittence.evidence(ancestryStates, fromStart: baseLine.count < Self.flakyWindowCommits)
                    + Intermittence.evidence(states.along(afterBaseColumns))
                if headIsMerge { evidence = evidence + Intermittence.evidence(mergedInStates) }
                for branch in mergedColumns {
                    evidence = evidence + Intermittence.evidence(
                        mergedBranch: states[branch.mergeBase], tip: states[branch.tip], merge: states[branch.merge],
                        recent: branch.recent)
                }
                // Held along the head's own commits, not a leak the base had already.
                let headHeld = Intermittence.leakHeld(states.along(ownPartColumns) + [.leaked])
                if evidence.showsIntermittence(headHeld: headHeld) {
                    flaky.insert(ids)
                }
            }

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
            let baseStates = Dictionary(baseCounts.map { ($0.ids, $0.state) }, uniquingKeysWith: { first, _ in first })
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
                                       knownFlaky: flaky.contains($0), inheritedFrom: inheritedFrom[$0])
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
