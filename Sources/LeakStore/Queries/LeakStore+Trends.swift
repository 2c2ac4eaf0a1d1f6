import LeakReport

extension LeakStore {
    /// How many commits along the branch the direction of a type compares.
    public static let directionWindow = 5

    /// One type's leaks per commit along the branch, oldest first (see `ProjectHistory.branchCommits`).
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func trend(project: String, type: String, branch: String, environment: String, limit: Int,
                      fingerprints withFingerprints: Bool) throws -> [TrendPoint] {
        try trends(project: project, types: [type], branch: branch, environment: environment, limit: limit,
                   fingerprints: withFingerprints)[type] ?? []
    }

    /// Several types' trends along the same commits, in one snapshot: the branch is walked once,
    /// and each type's keys are a range of `leak_states` each (in key order on SQLite, by its index by key on PostgreSQL) over the walk's commits. The
    /// fingerprints of each leaking commit are read from its runs' checks, only when asked for
    /// (a chart draws none). A type the server never saw has an empty trend.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func trends(project: String, types: [String], branch: String, environment: String, limit: Int,
                       fingerprints withFingerprints: Bool) throws -> [String: [TrendPoint]] {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            var line: [BranchCommit]?
            var result: [String: [TrendPoint]] = [:]
            for type in types {
                guard let typeID = try db.scalarInt(sql: "SELECT id FROM types WHERE name = \(type)") else {
                    result[type] = []
                    continue
                }
                if line == nil {
                    var commits = try history.branchCommits(branch, environment: environment, limit: limit).reversed() as [BranchCommit]
                    let times = try history.firstRunTimes(of: commits.filter { $0.at == nil }.map(\.id), environment: environment)
                    for index in commits.indices where commits[index].at == nil { commits[index].at = times[commits[index].id] }
                    line = commits
                }
                let commits = line ?? []
                let countsAt = try history.keyCounts(.type(typeID), environment: environment, at: commits.map(\.id))
                // The fingerprints of each leaking commit, only when asked for.
                let leakingCommits = commits.map(\.id).filter { countsAt[$0]?.contains { $0.tally.isLeaking } ?? false }
                let fingerprintsAt = withFingerprints
                    ? try history.leakFingerprints(typeID: typeID, environment: environment, at: leakingCommits) : [:]
                result[type] = commits.map { commit in
                    let counts = countsAt[commit.id] ?? []
                    let leaking = counts.filter(\.tally.isLeaking)
                    let fingerprints = fingerprintsAt[commit.id] ?? []
                    return TrendPoint(
                        commit: commit.sha, at: commit.at ?? "", leakedKeys: leaking.count, checkedKeys: counts.count,
                        scenarios: leaking.map(\.scenario).sorted(), fingerprints: fingerprints)
                }
            }
            return result
        }
    }

    /// Each type leaking at the branch's newest commit with data.
    ///
    /// Direction compares the number of scenarios the type leaks in at the head with the mean
    /// over the `directionWindow - 1` commits before it along the branch: more is rising, fewer
    /// is falling, the same (or no earlier commit) is flat.
    ///
    /// Types come sorted by name, at most `limit` of them, after `after` when given (the `next`
    /// of an earlier page); `next` names the page's last type when more follow. Only the page's
    /// types are followed back for `firstSeen`.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func leakingTypes(project: String, branch: String, environment: String, after: String?,
                             limit: Int) throws -> LeakingTypes {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            let line = try history.branchCommits(branch, environment: environment,
                                                 limit: max(Self.directionWindow, Self.firstSeenCommits))
            let window = line.prefix(Self.directionWindow)
            guard let head = window.first else { return LeakingTypes(head: nil, types: []) }
            var leakingAtHead: [Int64: (name: String, scenarios: [String], keys: [KeyIDs])] = [:]
            for counts in try history.keyCounts(commitID: head.id, environment: environment, having: .leaking) {
                leakingAtHead[counts.typeID, default: (counts.type, [], [])].scenarios.append(counts.scenario)
                leakingAtHead[counts.typeID]?.keys.append(counts.ids)
            }
            let names = leakingAtHead.map { (id: $0.key, name: $0.value.name) }
                .filter { after == nil || $0.name > after! }.sorted { $0.name < $1.name }
            let page = Set(names.prefix(limit).map(\.id))
            leakingAtHead = leakingAtHead.filter { page.contains($0.key) }
            let position = Dictionary(line.enumerated().map { ($1.sha, $0) }, uniquingKeysWith: { first, _ in first })
            var earlierTotals: [Int64: Int] = [:]
            for commit in window.dropFirst() {
                for counts in try history.keyCounts(commitID: commit.id, environment: environment, having: .leaking)
                where leakingAtHead[counts.typeID] != nil {
                    earlierTotals[counts.typeID, default: 0] += 1
                }
            }
            let earlierCount = window.count - 1
            let since = try history.leakingSince(Set(leakingAtHead.values.flatMap(\.keys)), along: line, environment: environment)
            let types = leakingAtHead.map { typeID, leaking in
                let now = leaking.scenarios.count * earlierCount, before = earlierTotals[typeID] ?? 0
                let direction: LeakingTypes.Direction =
                    earlierCount == 0 || now == before ? .flat : (now > before ? .rising : .falling)
                // The type leaks since the oldest start among its keys' current leaking stretches.
                let first = leaking.keys.compactMap { since[$0] }
                    .max { position[$0, default: 0] < position[$1, default: 0] }
                return LeakingTypes.Summary(
                    type: leaking.name, leakingScenarios: leaking.scenarios.sorted(), firstSeen: first ?? head.sha,
                    lastSeen: head.sha, direction: direction)
            }
            let sorted = types.sorted { $0.type < $1.type }
            return LeakingTypes(head: head.sha, types: sorted, next: names.count > limit ? sorted.last?.type : nil)
        }
    }

    /// The scenario's keys and states per commit with usable runs, oldest first: the newest
    /// `limit` such commits of `branch`'s first-parent line when given, else of the whole
    /// project (upload order) — older than `before` when given, the `next` of an earlier page.
    /// Commits with only suspect runs do not use up the limit. `next` names the page's oldest
    /// commit when there are older ones.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func scenarioHistory(project: String, scenario: String, branch: String?, environment: String, limit: Int,
                                before: String?) throws -> ScenarioHistory {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            guard let scenarioID = try db.scalarInt(sql: "SELECT id FROM scenarios WHERE name = \(scenario)") else {
                return ScenarioHistory(scenario: scenario, environment: environment, commits: [])
            }
            var below = Int64.max
            if let before {
                guard let id = try history.commitID(before) else {
                    return ScenarioHistory(scenario: scenario, environment: environment, commits: [])
                }
                below = id
            }
            var commitIDs: [Int64] = []
            if let branch {
                if before == nil {
                    commitIDs = try history.branchCommits(branch, environment: environment, limit: limit + 1).map(\.id)
                } else {
                    // The page before ended at `before`, which has data: walk on from it, without it.
                    commitIDs = try history.firstParentLine(from: below, branch: branch, environment: environment, limit: limit + 2)
                        .map(\.id).filter { $0 != below }
                }
            } else {
                commitIDs = try db.keyStates.newestCommits(ofScenario: scenarioID, environment: environment,
                                                           projectID: history.projectID, below: below, limit: limit + 1)
            }
            let more = commitIDs.count > limit
            commitIDs = Array(commitIDs.prefix(limit))
            let countsAt = try history.keyCounts(.scenario(scenarioID), environment: environment, at: commitIDs)
            var commits: [ScenarioHistory.Commit] = []
            let shas = try history.shas(of: commitIDs)
            for commitID in commitIDs.reversed() {
                let sha = shas[commitID] ?? ""
                let keys = (countsAt[commitID] ?? [])
                    .map { ScenarioHistory.Key(type: $0.type, state: $0.state, checked: Int($0.tally.checked), leaked: Int($0.tally.leaked)) }
                guard !keys.isEmpty else { continue }
                commits.append(ScenarioHistory.Commit(commit: sha, keys: keys.sorted { $0.type < $1.type }))
            }
            return ScenarioHistory(scenario: scenario, environment: environment, commits: commits,
                                   next: more ? commitIDs.last.flatMap { shas[$0] } : nil)
        }
    }
}
