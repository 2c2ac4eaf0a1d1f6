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
    /// How many of the head's other environments the gate reads for a key its own rate explains
    /// (`GateRule.readsOtherEnvironments`): at most two of them can count (`GateRule.countedSightings`),
    /// a few more find them when some did not leak the key.
    public static let otherEnvironmentsRead = 8
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
                // Padded to `StoreTuning.candidatesPerStatement` candidates: the same text for every batch.
                try db.query(sql: """
                    SELECT c.sha FROM commits c
                    WHERE c.project_id = \(history.projectID)
                      AND c.sha IN (\(list: batch.padded(to: StoreTuning.candidatesPerStatement).map(SQLValue.text)))
                      AND EXISTS (SELECT 1 FROM runs r WHERE r.commit_id = c.id AND r.environment = \(environment) AND r.suspect = 0)
                    """) { usable.insert($0.string("sha") ?? "") }
                if let found = batch.firstIndex(where: usable.contains) { return found }
            }
            return nil
        }
    }

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
            let read = DiffRead(history: history, environment: environment)
            let sides = try read.sides(head: head, base: base)
            guard let base else { return try unverifiedDiff(read, sides) }
            var counts = try read.counts(sides)
            let windows = try read.windows(sides)
            let baseStateFrom = try read.standIns(&counts, along: windows)
            let evidence = try read.evidence(counts, sides, windows, baseStateFrom: baseStateFrom)
            let inheritedFrom = try read.inherited(counts, after: after, base: base, mergeBase: mergeBase)
            return try classify(read, sides, counts, evidence: evidence, inheritedFrom: inheritedFrom,
                                baseStateFrom: baseStateFrom, suppressions: try suppressionRules(db, projectID: history.projectID),
                                now: now)
        }
    }

    /// The diff without a base: every leak at head is `unverified`.
    private func unverifiedDiff(_ read: DiffRead, _ sides: DiffRead.Sides) throws -> CommitDiff {
        let history = read.history, environment = read.environment
        let headCounts = try history.tellingCounts(head: sides.headID, base: nil, environment: environment).head
        let keys = Set(headCounts.map(\.ids))
        let observations = try Self.observations(history, sides.headID, headCounts, environment: environment,
                                                 wanted: keys, detailed: keys, includingSuspect: true)
        var diff = LeakDiff(unverifiedHead: Dictionary(observations.byKey.map { (observations.names[$0.key]!, $0.value) },
                                                       uniquingKeysWith: { first, _ in first }))
        let idsOf = Dictionary(observations.names.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        try annotateFirstSeen(&diff, history, headID: sides.headID, ids: diff.entries.map { idsOf[$0.key]! },
                              environment: environment)
        return CommitDiff(base: nil, head: sides.head, leaks: diff)
    }

    /// The last step: each side's checks for the entries that show them, each key classified
    /// (`LeakDiff.classify`), and where each entry's base state and first leak came from.
    private func classify(_ read: DiffRead, _ sides: DiffRead.Sides, _ counts: DiffRead.Counts, evidence: DiffRead.Evidence,
                          inheritedFrom: [KeyIDs: String], baseStateFrom: [KeyIDs: String], suppressions: [LeakSuppression],
                          now: Date) throws -> CommitDiff {
        let history = read.history, environment = read.environment
        let baseStates = counts.baseStates
        // Each side's checks only for the entries that show them (`LeakDiff.showsBaseCheck`): of a
        // key the head has and the base passed on, the base's state alone (its site was a few
        // seeks a key: a head whose broken run leaked 300 keys).
        let shownFromBase = counts.interesting.filter { LeakDiff.showsBaseCheck(before: baseStates[$0], after: counts.headStates[$0]) }
        let baseObservations = try Self.observations(history, sides.baseID, counts.base, environment: environment,
                                                     wanted: counts.interesting, detailed: shownFromBase, includingSuspect: false)
        let headObservations = try Self.observations(history, sides.headID, counts.head, environment: environment,
                                                     wanted: counts.interesting, detailed: counts.interesting.subtracting(shownFromBase),
                                                     includingSuspect: true)
        var names = baseObservations.names
        names.merge(headObservations.names) { first, _ in first }
        let keys = Array(Set(baseObservations.byKey.keys).union(headObservations.byKey.keys))
        let comparisons = keys.map {
            LeakDiff.KeyComparison(key: names[$0]!, base: baseObservations.byKey[$0], head: headObservations.byKey[$0],
                                   evidence: evidence.byKey[$0], inheritedFrom: inheritedFrom[$0],
                                   baseConfirmed: evidence.releasedAtBase[$0] == nil)
        }
        var (diff, sources) = LeakDiff.classify(comparisons, suppressions: suppressions, now: now)
        let entryIDs = sources.map { keys[$0] }
        for (index, ids) in entryIDs.enumerated() {
            if let sha = baseStateFrom[ids] { diff.entries[index].baseStateFrom = sha }
        }
        try annotateFirstSeen(&diff, history, headID: sides.headID, ids: entryIDs, environment: environment)
        return CommitDiff(base: CommitDiff.Side(commit: sides.baseSha, runs: sides.baseRuns), head: sides.head, leaks: diff)
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
