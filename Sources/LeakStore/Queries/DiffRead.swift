import LeakReport

/// A diff's reads in one snapshot, as named steps (`LeakStore.diff`): the two **sides**, the
/// **counts** of the keys that tell at either, the **windows** (the first-parent lines a key's
/// history is judged along), the **stand-ins** for keys the base did not check, the **evidence**
/// of the keys the gate judges (and those a later upload of the base branch leaks too); then
/// `LeakStore.diff` classifies. docs/STORAGE.md ("How a diff is read") tells the same order.
struct DiffRead {
    let history: ProjectHistory
    let environment: String

    /// The head and the base as the diff names them: their ids, runs, and the head's suspect runs.
    struct Sides {
        var headID: Int64?
        var head: CommitDiff.Side
        var baseID: Int64?
        var baseSha: String
        /// The base's usable runs (a suspect run is never a base).
        var baseRuns: Int
    }

    func sides(head: String, base: String?) throws -> Sides {
        let headID = try history.commitID(head, environment: environment)
        let headRuns = try headID.map { try history.runCounts(commitID: $0, environment: environment) } ?? (usable: 0, suspect: 0)
        let suspectRuns = try headID.map {
            headRuns.suspect > 0 ? try history.suspectRuns(commitID: $0, environment: environment) : []
        } ?? []
        let headSide = CommitDiff.Side(commit: head.lowercased(), runs: headRuns.usable + headRuns.suspect, suspectRuns: suspectRuns)
        guard let base else { return Sides(headID: headID, head: headSide, baseID: nil, baseSha: "", baseRuns: 0) }
        let baseID = try history.commitID(base, environment: environment)
        let baseRuns = try baseID.map { try history.runCounts(commitID: $0, environment: environment).usable } ?? 0
        return Sides(headID: headID, head: headSide, baseID: baseID, baseSha: base.lowercased(), baseRuns: baseRuns)
    }

    /// The counts of every key that leaked, flaked or released late on a side, on both sides
    /// (`ProjectHistory.tellingCounts`): only those can land in a category.
    struct Counts {
        var head: [KeyCounts]
        /// The base's, a stand-in's state in place of a key the base did not check (`standIns`).
        var base: [KeyCounts]
        var interesting: Set<KeyIDs>
        var leakingAtHead: Set<KeyIDs>
        /// Each key's state at the base itself, before any stand-in.
        var checkedAtBase: [KeyIDs: KeyState]
        var headByKey: [KeyIDs: KeyCounts]
        var headStates: [KeyIDs: KeyState]
        /// Each key's state on the base side, stand-ins included.
        var baseStates: [KeyIDs: KeyState]
    }

    func counts(_ sides: Sides) throws -> Counts {
        let counts = try history.tellingCounts(head: sides.headID, base: sides.baseID, environment: environment)
        let headByKey = Dictionary(counts.head.map { ($0.ids, $0) }, uniquingKeysWith: { first, _ in first })
        let baseStates = Dictionary(counts.base.map { ($0.ids, $0.state) }, uniquingKeysWith: { first, _ in first })
        return Counts(head: counts.head, base: counts.base,
                      interesting: Set(counts.head.map(\.ids)).union(counts.base.map(\.ids)),
                      leakingAtHead: Set(counts.head.filter { $0.state == .leaked || $0.state == .flaky }.map(\.ids)),
                      checkedAtBase: baseStates, headByKey: headByKey, headStates: headByKey.mapValues(\.state),
                      baseStates: baseStates)
    }

    /// The first-parent lines a key's history is judged along.
    struct Windows {
        /// The base's line: the fallback for keys it did not check, and the window the gate
        /// measures a key's rate over (`LeakStore.flakyWindowCommits`).
        var baseLine: [BranchCommit]
        /// The head's own line: what a merge brings in (its second parent), else the head's first
        /// parent when that is not the base (a pull request's earlier commits); newest first, up to
        /// where it joins the base's line (`LeakStore.ownLineCommits`).
        var ownLine: [BranchCommit]
    }

    func windows(_ sides: Sides) throws -> Windows {
        let baseBranch = try sides.baseID.flatMap { try history.branch(ofCommit: $0) }
        let baseLine = try sides.baseID.map {
            try history.firstParentLine(from: $0, branch: baseBranch, environment: environment, limit: LeakStore.flakyWindowCommits)
        } ?? []
        var ownLine: [BranchCommit] = []
        if let headID = sides.headID,
           let start = try history.parent(of: headID, position: 1) ?? history.parent(of: headID, position: 0), start != sides.baseID {
            let onBaseLine = Set(baseLine.map(\.id))
            ownLine = try history.firstParentLine(from: start, branch: nil, environment: environment, limit: LeakStore.ownLineCommits)
                .prefix { !onBaseLine.contains($0.id) }.map { $0 }
        }
        return Windows(baseLine: baseLine, ownLine: ownLine)
    }

    /// A key that leaks at head and that the base did not check (or only errored on) takes the
    /// state of the nearest of `LeakStore.fallbackCommits` ancestors along the base's line that
    /// checked it. Returns the sha each stand-in came from.
    func standIns(_ counts: inout Counts, along windows: Windows) throws -> [KeyIDs: String] {
        let standingIn = counts.leakingAtHead.filter { counts.checkedAtBase[$0] == nil || counts.checkedAtBase[$0] == .error }
        let standIns = try history.nearestCheckedStates(standingIn, along: Array(windows.baseLine.prefix(LeakStore.fallbackCommits)),
                                                        environment: environment)
        let fromAncestors = standIns.filter { $0.value.position > 0 }
        var from: [KeyIDs: String] = [:]
        guard !fromAncestors.isEmpty else { return from }
        // Each base count a stand-in replaces goes in one pass (a suspect head's 155 stand-ins
        // each searched the head's and the base's few hundred counts).
        counts.base.removeAll { fromAncestors[$0.ids] != nil }
        for (ids, standIn) in fromAncestors {
            from[ids] = windows.baseLine[standIn.position].sha
            counts.base.append(KeyCounts(KeyTally(standingFor: standIn.state), named: counts.headByKey[ids]!))
        }
        counts.baseStates = Dictionary(counts.base.map { ($0.ids, $0.state) }, uniquingKeysWith: { first, _ in first })
        return from
    }

    /// What the gate knows of the keys it judges.
    struct Evidence {
        /// Each judged key's runs and attempts at head, its runs along the head's ancestry.
        var byKey: [KeyIDs: KeyEvidence]
        /// By key, the attempts that released the object in the base's own leaked checks, for the
        /// keys whose leak there some attempt released: such a base leak does not hide the head's.
        var releasedAtBase: [KeyIDs: Int]
    }

    /// What the gate knows of each key it judges (`LeakDiff.isJudged`): its runs and attempts at
    /// head, its runs along the head's ancestry (`ProjectHistory.keyEvidence`); a base leak some
    /// attempt there released does not hide the head's. For a key whose own rate explains its
    /// leak (`GateRule.readsOtherEnvironments`), the same evidence in the head's other
    /// environments where every run and attempt leaked it (`ProjectHistory.confirmedEvidence`),
    /// each along its own lines there.
    func evidence(_ counts: Counts, _ sides: Sides, _ windows: Windows, baseStateFrom: [KeyIDs: String]) throws -> Evidence {
        let releasedAtBase = try sides.baseID.map {
            try history.releasedAttempts(commitID: $0, environment: environment,
                                         keys: counts.leakingAtHead.filter { counts.baseStates[$0] == .leaked && baseStateFrom[$0] == nil })
        } ?? [:]
        let judged = counts.leakingAtHead.filter {
            LeakDiff.isJudged(before: counts.baseStates[$0], after: counts.headStates[$0], baseConfirmed: releasedAtBase[$0] == nil)
        }
        var byKey = try history.keyEvidence(head: counts.headByKey.filter { judged.contains($0.key) }, headID: sides.headID,
                                            ownLine: windows.ownLine, baseLine: windows.baseLine, releasedAtBase: releasedAtBase,
                                            environment: environment)
        let waiting = Set(byKey.filter { GateRule.readsOtherEnvironments($0.value) }.keys)
        if !waiting.isEmpty, let headID = sides.headID {
            for other in try history.otherEnvironments(ofCommit: headID, than: environment, limit: LeakStore.otherEnvironmentsRead) {
                let otherWindows = try DiffRead(history: history, environment: other).windows(sides)
                let found = try history.confirmedEvidence(of: waiting, headID: headID, ownLine: otherWindows.ownLine,
                                                          baseLine: otherWindows.baseLine, environment: other)
                for (ids, evidence) in found { byKey[ids]?.otherEnvironments[other] = evidence }
            }
        }
        return Evidence(byKey: byKey, releasedAtBase: releasedAtBase)
    }

    /// The keys a would-be-new leak of which is inherited: those that leak at `after`, the base
    /// branch's nearest upload after the merge-base, where the base's data ran out — the whole
    /// base fell back past the merge-base (assumed without `mergeBase`), or the base did not check
    /// the key (or only errored on it). Each with `after`'s sha.
    func inherited(_ counts: Counts, after: String?, base: String, mergeBase: String?) throws -> [KeyIDs: String] {
        var inheritedFrom: [KeyIDs: String] = [:]
        guard let after, let afterID = try history.commitID(after, environment: environment),
              try history.runCounts(commitID: afterID, environment: environment).usable > 0 else { return inheritedFrom }
        let baseFellBack = mergeBase.map { $0.lowercased() != base.lowercased() } ?? true
        let states = try history.keyCounts(commitID: afterID, environment: environment, having: .leaking)
        for state in states where counts.leakingAtHead.contains(state.ids) && (state.state == .leaked || state.state == .flaky)
            && (baseFellBack || counts.checkedAtBase[state.ids] == nil || counts.checkedAtBase[state.ids] == .error) {
            inheritedFrom[state.ids] = after.lowercased()
        }
        return inheritedFrom
    }
}
