import LeakReport

extension ProjectHistory {
    /// What the gate knows of each key judged at a head (`KeyEvidence`, read once for both
    /// engines through the key-state reads): its runs and attempts at the head, and its runs at
    /// each commit of the head's ancestry that checked it.
    ///
    /// - Parameters:
    ///   - head: each judged key's counts at the head (every run there), as the diff read them.
    ///   - headID: the head; nil when it has no upload (no attempts to read).
    ///   - ownLine: the head's own commits, newest first — a pull request's earlier commits, or
    ///     those a merge brings in — none on `baseLine`.
    ///   - baseLine: the base's first-parent window of usable commits, newest first (the base first).
    ///   - releasedAtBase: by key, the attempts of the base's leaked checks that released the
    ///     object (`releasedAttempts`), for the keys whose leak there some attempt released.
    ///
    /// The history is `ownLine` then `baseLine`, newest first (`GateRule` reads the commits next
    /// to the head whose leak was confirmed as the head's leak holding). A key not confirmed at
    /// head is flaky whatever its history (`GateRule`): its history is not read.
    func keyEvidence(head: [KeyIDs: KeyCounts], headID: Int64?, ownLine: [BranchCommit], baseLine: [BranchCommit],
                     releasedAtBase: [KeyIDs: Int], environment: String) throws -> [KeyIDs: KeyEvidence] {
        guard !head.isEmpty else { return [:] }
        let attempts = try headID.map { try attemptsBeyondOne(commitID: $0, environment: environment, keys: Set(head.keys)) } ?? [:]
        var evidence = head.mapValues { Self.atHead(KeyStateGrid.Cell($0.tally)) }
        for (ids, extra) in attempts { evidence[ids]?.add(extra) }
        let confirmed = Set(evidence.filter(\.value.confirmedAtHead).keys)
        let lines = ownLine.map(\.id) + baseLine.map(\.id)
        guard !confirmed.isEmpty, !lines.isEmpty else { return evidence }
        let grid = try keyStates(confirmed, environment: environment, at: Set(lines))
        Self.readHistories(of: confirmed, from: grid, ownLine: ownLine, baseLine: baseLine, releasedAtBase: releasedAtBase,
                           into: &evidence)
        return evidence
    }

    /// The evidence of `keys` at the head in another environment, for those of them that every
    /// run and attempt there leaked (`KeyEvidence.otherEnvironments`): their runs and attempts
    /// there, and their runs along that environment's lines (`ownLine`, `baseLine`, walked in
    /// it). A key checked clean there, or released by some attempt, is left out: a leak can be
    /// one platform's, and intermittence elsewhere says nothing of it here.
    func confirmedEvidence(of keys: Set<KeyIDs>, headID: Int64, ownLine: [BranchCommit], baseLine: [BranchCommit],
                           environment: String) throws -> [KeyIDs: KeyEvidence] {
        guard !keys.isEmpty else { return [:] }
        let grid = try keyStates(keys, environment: environment, at: Set([headID] + ownLine.map(\.id) + baseLine.map(\.id)))
        let headColumn = grid.columns(of: [headID])
        var evidence = keys.reduce(into: [KeyIDs: KeyEvidence]()) { evidence, ids in
            if let cell = grid.row(ids).cells(along: headColumn).first ?? nil, cell.runs > 0 { evidence[ids] = Self.atHead(cell) }
        }.filter(\.value.confirmedAtHead)
        guard !evidence.isEmpty else { return [:] }
        for (ids, extra) in try attemptsBeyondOne(commitID: headID, environment: environment, keys: Set(evidence.keys)) {
            evidence[ids]?.add(extra)
        }
        evidence = evidence.filter(\.value.confirmedAtHead)
        Self.readHistories(of: Set(evidence.keys), from: grid, ownLine: ownLine, baseLine: baseLine, releasedAtBase: [:],
                           into: &evidence)
        return evidence
    }

    /// A key's evidence at a head from its runs there (one attempt each), before its checks'
    /// attempts are added (`KeyEvidence.add`) and its history read.
    private static func atHead(_ cell: KeyStateGrid.Cell) -> KeyEvidence {
        KeyEvidence(headRuns: Int(cell.runs), headLeakedRuns: Int(cell.leakedRuns), headAttempts: Int(cell.runs),
                    headLeakedAttempts: Int(cell.leakedRuns), history: [])
    }

    /// Each key's runs along `ownLine` then `baseLine` (newest first), from a grid that holds
    /// them: `KeyEvidence.history`.
    private static func readHistories(of keys: Set<KeyIDs>, from grid: KeyStateGrid, ownLine: [BranchCommit],
                                      baseLine: [BranchCommit], releasedAtBase: [KeyIDs: Int],
                                      into evidence: inout [KeyIDs: KeyEvidence]) {
        let ownColumns = grid.columns(of: ownLine.map(\.id)), baseColumns = grid.columns(of: baseLine.map(\.id))
        func tallies(_ cells: [KeyStateGrid.Cell?]) -> [KeyEvidence.RunTally?] {
            cells.map { cell in cell.flatMap { $0.runs > 0 ? KeyEvidence.RunTally(runs: Int($0.runs), leakedRuns: Int($0.leakedRuns)) : nil } }
        }
        for ids in keys {
            let row = grid.row(ids)
            var base = tallies(row.cells(along: baseColumns))
            if let released = releasedAtBase[ids], base.first != nil { base[0]?.releasedAttempts = released }
            evidence[ids]?.history = (tallies(row.cells(along: ownColumns)) + base).compactMap { $0 }
        }
    }

    /// The environments other than `environment` where the commit has usable runs and no
    /// suspect one (a broken harness's leaks are no evidence), by name, at most `limit`.
    func otherEnvironments(ofCommit commitID: Int64, than environment: String, limit: Int) throws -> [String] {
        var found: [String] = []
        try db.query(sql: """
            SELECT r.environment FROM runs r
            WHERE r.commit_id = \(commitID) AND r.environment <> \(environment)
            GROUP BY r.environment HAVING max(r.suspect) = 0
            ORDER BY r.environment LIMIT \(limit)
            """) { row in
            if let name = row.string("environment") { found.append(name) }
        }
        return found
    }

    /// By key, the attempts of the leaked checks of `keys` at a commit (every run) that released
    /// the object, for the keys some attempt released: a leak there that is not confirmed.
    func releasedAttempts(commitID: Int64, environment: String, keys: Set<KeyIDs>) throws -> [KeyIDs: Int] {
        guard !keys.isEmpty else { return [:] }
        return try attemptsBeyondOne(commitID: commitID, environment: environment, keys: keys)
            .filter { $0.value.released > 0 }.mapValues(\.released)
    }

    /// The attempts beyond the first of the leaked checks of `keys` at a commit (every run), and
    /// those of their attempts that released the object, by key: a check without attempts is one
    /// attempt, leaked or not, so only the records that carry attempts add to a key's runs.
    private func attemptsBeyondOne(commitID: Int64, environment: String, keys: Set<KeyIDs>) throws
        -> [KeyIDs: (more: Int, released: Int)]
    {
        var found: [KeyIDs: (more: Int, released: Int)] = [:]
        try db.query(sql: """
            SELECT k.scenario_id, k.type_id, k.attempts, k.leaked_attempts
            FROM runs r JOIN checks k ON k.run_id = r.id
            WHERE r.commit_id = \(commitID) AND r.environment = \(environment) AND k.outcome = 'leaked'
              AND (k.attempts IS NOT NULL OR k.leaked_attempts IS NOT NULL)
            """) { row in
            let ids = KeyIDs(scenarioID: row.int64("scenario_id"), typeID: row.int64("type_id"))
            guard keys.contains(ids) else { return }
            let attempts = row.isNull("attempts") ? 1 : row.int("attempts")
            let leaked = row.isNull("leaked_attempts") ? attempts : row.int("leaked_attempts")
            found[ids, default: (0, 0)].more += attempts - 1
            found[ids, default: (0, 0)].released += attempts - leaked
        }
        return found
    }
}

extension KeyEvidence {
    /// The attempts beyond one of the key's leaked checks at head, and those of them that
    /// released the object (`ProjectHistory.attemptsBeyondOne`): more attempts, fewer leaked.
    fileprivate mutating func add(_ extra: (more: Int, released: Int)) {
        headAttempts += extra.more
        headLeakedAttempts += extra.more - extra.released
    }
}
