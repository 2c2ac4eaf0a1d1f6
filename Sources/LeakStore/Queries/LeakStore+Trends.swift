import LeakReport

extension LeakStore {
    /// How many commits along the branch the direction of a type compares.
    public static let directionWindow = 5

    /// One type's leaks per commit along the branch, oldest first (see `ProjectHistory.branchCommits`).
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func trend(project: String, type: String, branch: String, environment: String, limit: Int) throws -> [TrendPoint] {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            guard let typeID = try db.scalarInt("SELECT id FROM types WHERE name = ?", [.text(type)]) else {
                return []
            }
            return try history.branchCommits(branch, environment: environment, limit: limit).reversed().map { commit in
                let counts = try history.keyCounts(commitID: commit.id, environment: environment, typeID: typeID)
                let leaking = counts.filter { $0.leaked > 0 }
                var fingerprints: [String] = []
                // `+k.type_id` keeps SQLite off `checks_by_type`, which would visit the type's
                // checks at every commit instead of this commit's runs.
                if !leaking.isEmpty {
                    try db.query("""
                        SELECT DISTINCT k.fingerprint FROM runs r JOIN checks k ON k.run_id = r.id
                        WHERE r.commit_id = ? AND r.environment = ? AND r.suspect = 0 AND +k.type_id = ?
                          AND k.outcome = 'leaked' AND k.fingerprint IS NOT NULL
                        ORDER BY k.fingerprint
                        """, [.integer(commit.id), .text(environment), .integer(typeID)]) { fingerprints.append($0.string(at: 0) ?? "") }
                }
                return TrendPoint(
                    commit: commit.sha, at: commit.at, leakedKeys: leaking.count, checkedKeys: counts.count,
                    scenarios: leaking.map(\.scenario).sorted(), fingerprints: fingerprints)
            }
        }
    }

    /// Each type leaking at the branch's newest commit with data.
    ///
    /// Direction compares the number of scenarios the type leaks in at the head with the mean
    /// over the `directionWindow - 1` commits before it along the branch: more is rising, fewer
    /// is falling, the same (or no earlier commit) is flat.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func leakingTypes(project: String, branch: String, environment: String) throws -> LeakingTypes {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            let line = try history.branchCommits(branch, environment: environment,
                                                 limit: max(Self.directionWindow, Self.firstSeenCommits))
            let window = line.prefix(Self.directionWindow)
            guard let head = window.first else { return LeakingTypes(head: nil, types: []) }
            var leakingAtHead: [Int64: (name: String, scenarios: [String], keys: [KeyIDs])] = [:]
            for counts in try history.keyCounts(commitID: head.id, environment: environment) where counts.leaked > 0 {
                leakingAtHead[counts.typeID, default: (counts.type, [], [])].scenarios.append(counts.scenario)
                leakingAtHead[counts.typeID]?.keys.append(counts.ids)
            }
            let position = Dictionary(line.enumerated().map { ($1.sha, $0) }, uniquingKeysWith: { first, _ in first })
            var earlierTotals: [Int64: Int] = [:]
            for commit in window.dropFirst() {
                for counts in try history.keyCounts(commitID: commit.id, environment: environment)
                where counts.leaked > 0 && leakingAtHead[counts.typeID] != nil {
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
            return LeakingTypes(head: head.sha, types: types.sorted { $0.type < $1.type })
        }
    }

    /// The scenario's keys and states per commit with usable runs, oldest first: the newest
    /// `limit` such commits of `branch`'s first-parent line when given, else of the whole
    /// project (upload order). Commits with only suspect runs do not use up the limit.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func scenarioHistory(project: String, scenario: String, branch: String?, environment: String,
                                limit: Int) throws -> ScenarioHistory {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            var commits: [ScenarioHistory.Commit] = []
            guard let scenarioID = try db.scalarInt("SELECT id FROM scenarios WHERE name = ?", [.text(scenario)]) else {
                return ScenarioHistory(scenario: scenario, environment: environment, commits: [])
            }
            var commitIDs: [Int64] = []
            if let branch {
                commitIDs = try history.branchCommits(branch, environment: environment, limit: limit).map(\.id)
            } else {
                try db.query("""
                    SELECT DISTINCT ls.commit_id FROM leak_states ls JOIN commits c ON c.id = ls.commit_id
                    WHERE ls.scenario_id = ?1 AND ls.environment_id = (SELECT id FROM environments WHERE name = ?2)
                      AND c.project_id = ?3
                      AND EXISTS (SELECT 1 FROM runs r WHERE r.commit_id = ls.commit_id AND r.environment = ?2 AND r.suspect = 0)
                    ORDER BY ls.commit_id DESC LIMIT ?4
                    """, [.integer(scenarioID), .text(environment), .integer(history.projectID), .integer(Int64(limit))]) {
                    commitIDs.append($0.int64(at: 0))
                }
            }
            for commitID in commitIDs.reversed() {
                let keys = try history.keyCounts(commitID: commitID, environment: environment)
                    .filter { $0.scenarioID == scenarioID }
                    .map { ScenarioHistory.Key(type: $0.type, state: $0.state, checked: $0.checked, leaked: $0.leaked) }
                guard !keys.isEmpty else { continue }
                commits.append(ScenarioHistory.Commit(
                    commit: try history.commitPoint(commitID, environment: environment).sha,
                    keys: keys.sorted { $0.type < $1.type }))
            }
            return ScenarioHistory(scenario: scenario, environment: environment, commits: commits)
        }
    }
}
