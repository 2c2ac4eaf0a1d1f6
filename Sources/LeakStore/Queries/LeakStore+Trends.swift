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
                guard let typeID = try db.scalarInt("SELECT id FROM types WHERE name = ?", [.text(type)]) else {
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
            guard let scenarioID = try db.scalarInt("SELECT id FROM scenarios WHERE name = ?", [.text(scenario)]) else {
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
                // The newest commits of each of the scenario's keys (one range of `leak_states` by key
                // each, newest first), then the newest of them all: every one of those is among its
                // key's newest `limit + 1`. The key's range is the only table scanned: the project is
                // its usable run's (a run's project is its commit's), looked up a state at a time — a
                // join with `commits` was walked by PostgreSQL from the newest commit down to the
                // key's newest state, which for a key not checked lately grew with the history (a
                // scenario history at 10M checks 5.5× its time at 1M); walking the project's commits
                // and looking the key up in each reads every commit's states.
                let onPostgres = history.db is PostgresConnection
                // Each key, and the top of its window below the cursor: on PostgreSQL its newest state
                // (`StateArrays.newestCommit`; a key without one there has nothing to read), read with
                // the keys — from the project's newest commit, a key not checked lately widened the
                // window to its whole history again.
                var keys: [(id: Int64, top: Int64)] = []
                if onPostgres {
                    try db.query("""
                        SELECT k.id, \(StateArrays.newestCommit(ofKey: "k.id", environment: "(SELECT id FROM environments WHERE name = ?2)",
                                                                 below: "CAST(?3 AS BIGINT)"))
                        FROM leak_keys k WHERE k.scenario_id = ?1
                        """, [.integer(scenarioID), .text(environment), .integer(below)]) { row in
                        if !row.isNull(at: 1) { keys.append((row.int64(at: 0), min(below, row.int64(at: 1) + 1))) }
                    }
                } else {
                    try db.query("SELECT id FROM leak_keys WHERE scenario_id = ?", [.integer(scenarioID)]) { keys.append(($0.int64(at: 0), below)) }
                }
                var newest: Set<Int64> = []
                // The window's states that count (those of usable published runs), newest first. On
                // PostgreSQL ordered before each is looked up among the runs, so that the lookups stop
                // at the `limit + 1`th (every state of the window was looked up, then sorted).
                let states = """
                    SELECT ls.commit_id
                    FROM \(history.statesOfKeys("SELECT CAST(?1 AS BIGINT)",
                                                environment: "(SELECT id FROM environments WHERE name = ?2)",
                                                from: "CAST(?6 AS BIGINT)", through: "CAST(?5 AS BIGINT) - 1")) ls
                    WHERE ls.key_id = ?1 AND ls.environment_id = (SELECT id FROM environments WHERE name = ?2)
                      AND ls.commit_id < ?5 AND ls.commit_id >= ?6
                    """
                let counts = """
                    EXISTS (SELECT 1 FROM runs r WHERE r.commit_id = ls.commit_id AND r.environment = ?2 AND r.suspect = 0
                            AND r.project_id = ?3 AND \(PendingUpload.isPublished("r")))
                    """
                let statement = onPostgres ? """
                    SELECT ls.commit_id FROM (\(states) ORDER BY ls.commit_id DESC OFFSET 0) ls
                    WHERE \(counts) ORDER BY ls.commit_id DESC LIMIT ?4
                    """ : "\(states) AND \(counts) ORDER BY ls.commit_id DESC LIMIT ?4"
                for (keyID, top) in keys {
                    // On PostgreSQL the key's blocks from `low` on (`StateArrays.keyStates`), `low`
                    // lowered until the window holds `limit + 1` commits or reaches the start: its
                    // whole history was every block of its group, 312 of them at 10M checks (a
                    // scenario history 7× its time at 1M). SQLite's table reads the key newest first.
                    var span = Int64(limit + 1) * 4_096
                    while true {
                        let low = onPostgres && top > span ? top - span : 0
                        var found: [Int64] = []
                        try db.query(statement, [.integer(keyID), .text(environment), .integer(history.projectID),
                                                 .integer(Int64(limit) + 1), .integer(top), .integer(low)]) {
                            found.append($0.int64(at: 0))
                        }
                        if found.count > limit || low == 0 {
                            newest.formUnion(found)
                            break
                        }
                        span = span > Int64.max / 4 ? Int64.max : span * 4
                    }
                }
                commitIDs = Array(newest.sorted(by: >).prefix(limit + 1))
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
