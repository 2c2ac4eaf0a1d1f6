/// PostgreSQL's key states as `KeyStateStore` reads them: each key's slices of its group's blocks
/// and its states not settled yet (`StateArrays.keySlices`), as stored, one statement for any
/// number of keys (an array parameter), merged here a commit at a time.
struct PostgresKeyStates: KeyStateStore {
    let db: PostgresConnection

    func append(_ states: [(keyID: Int64, state: KeyTally)], commitID: Int64, environmentID: Int64, settledAtOnce: Bool) throws {
        try StateArrays.append(states, commitID: commitID, environmentID: environmentID, byKeyUntilSettled: !settledAtOnce, db: db)
    }

    func copy(of from: Int64, into: Int64) throws {
        try StateArrays.copy(of: from, into: into, db: db)
    }

    func settle(maxStates: Int, maxKeys: Int) throws -> (rows: Int, states: Int, full: Bool) {
        try StateArrays.settle(maxStates: maxStates, maxKeys: maxKeys, db: db)
    }

    /// On PostgreSQL a batch is a statement of `GROUP BY`s and sorts over its states, and each
    /// writer waits only for itself: an upload that found settling due would answer that much later.
    var settlesInBackground: Bool { true }

    /// Each key, and the top of its window below `below`: its newest state
    /// (`StateArrays.newestCommit`; a key without one there has nothing to read), read with the
    /// keys — from the project's newest commit, a key not checked lately widened the window to its
    /// whole history again. Then the key's blocks from `low` on (`StateArrays.keyStates`), `low`
    /// lowered until the window holds `limit` commits or reaches the start: its whole history was
    /// every block of its group.
    func newestCommits(ofScenario scenarioID: Int64, environment: String, projectID: Int64, below: Int64, limit: Int) throws
        -> [Int64]
    {
        var keys: [(id: Int64, top: Int64)] = []
        try db.query(sql: """
            SELECT k.id, \(StateArrays.newestCommit(ofKey: "k.id", environment: "(SELECT id FROM environments WHERE name = \(environment))",
                                                     below: "CAST(\(below) AS BIGINT)")) AS newest
            FROM leak_keys k WHERE k.scenario_id = \(scenarioID)
            """) { row in
            if !row.isNull("newest") { keys.append((row.int64("id"), min(below, row.int64("newest") + 1))) }
        }
        var newest: Set<Int64> = []
        for (keyID, top) in keys {
            var span = Int64(limit) * StoreTuning.newestCommitsSpan
            while true {
                let low = top > span ? top - span : 0
                var found: [Int64] = []
                try db.query(sql: newestCommitsSQL(ofKey: keyID, environment: environment, projectID: projectID, below: top, low: low,
                                                   limit: limit, orderedFirst: true)) { found.append($0.int64("commit_id")) }
                if found.count >= limit || low == 0 {
                    newest.formUnion(found)
                    break
                }
                span = span > Int64.max / 4 ? Int64.max : span * 4
            }
        }
        return Array(newest.sorted(by: >).prefix(limit))
    }

    /// None cheaper than the keys' slices (`StateArrays.keySlices`) through `leak_states`.
    func passedKeys(commitID: Int64, environmentID: Int64) throws -> Set<Int64>? { nil }

    /// The commits' rows of `state_arrays`, one a run, as stored.
    func storedStates(at commitIDs: [Int64], environment: String, atMost limit: Int?) throws
        -> [(commitID: Int64, states: StoredStates)]?
    {
        guard !commitIDs.isEmpty else { return [] }
        var runs: [(commitID: Int64, states: StoredStates)] = []
        var tooLarge = false
        let limit = Int64(limit ?? Int(Int32.max))
        try db.query(sql: """
            SELECT a.commit_id, CASE WHEN a.state_count <= \(limit) THEN 1 ELSE 0 END AS sent,
                   CASE WHEN a.state_count <= \(limit) THEN a.key_ids END AS key_ids,
                   CASE WHEN a.state_count <= \(limit) THEN a.checked END AS checked,
                   CASE WHEN a.state_count <= \(limit) THEN a.leaked END AS leaked,
                   CASE WHEN a.state_count <= \(limit) THEN a.late END AS late,
                   CASE WHEN a.state_count <= \(limit) THEN a.errors END AS errors
            FROM state_arrays a
            WHERE a.commit_id = ANY(CAST(\(PostgresArray.literal(integers: commitIDs)) AS BIGINT[]))
              AND a.environment_id = (SELECT id FROM environments WHERE name = \(environment))
            ORDER BY a.commit_id
            """) { row in
            guard row.int("sent") == 1 else {
                tooLarge = true
                return
            }
            runs.append((row.int64("commit_id"), StoredStates(row: row, ids: "key_ids")))
        }
        return tooLarge ? nil : runs
    }

    /// A row a key and slice of its blocks (`StateArrays.keySlices`: key id, then arrays of
    /// commits and counts), as stored; not joined to `leak_keys` again (a join the planner made a
    /// nested loop over every state for each key).
    func visitStates(ofKeys batch: [SQLValue], environment: String, from low: Int64, through high: Int64,
                     _ state: (_ keyID: Int64, _ commitID: Int64, _ tally: KeyTally) -> Void) throws {
        try db.query(sql: keySlices("SELECT k.id FROM leak_keys k WHERE k.id = ANY(CAST(\(batch[0]) AS BIGINT[]))",
                                    environment: environment, from: low, through: high)) { row in
            let keyID = row.int64("key_id")
            let slice = StoredStates(row: row, ids: "commit_ids")
            for index in 0..<slice.count { state(keyID, slice.ids[index], slice.tally(at: index)) }
        }
    }

    /// The slices of `keys` (SQL yielding their ids) in `environment` over commits `low` through
    /// `high`: `key_id`, then the arrays `StoredStates(row:ids:)` reads (`commit_ids`).
    private func keySlices(_ keys: SQL, environment: String, from low: Int64, through high: Int64) -> SQL {
        """
        SELECT s.key_id, s.commit_ids, s.checked, s.leaked, s.late, s.errors
        FROM \(StateArrays.keySlices(keys, environment: "(SELECT id FROM environments WHERE name = \(environment))",
                                     from: "\(low)", through: "\(high)")) s
        """
    }

    func relation(ofKeys keys: SQL, environment: SQL, from low: SQL, through high: SQL) -> SQL {
        StateArrays.keyStates(keys, environment: environment, from: low, through: high)
    }

    /// The counts themselves, of the view or of the keys' blocks.
    func condition(_ filter: KeyTally.Filter, on alias: String) -> String { filter.condition(on: alias) }

    func pendingLeft(commitID: Int64) -> SQL { "SELECT 1 FROM state_arrays WHERE commit_id = \(commitID) LIMIT 1" }

    func pendingDelete(commitID: Int64, rows: Int64) -> SQL { StateArrays.removal(commitID: commitID, rows: rows) }

    func history(of keyIDs: Set<Int64>, environment: String, from low: Int64, through high: Int64) throws
        -> [Int64: [(commitID: Int64, tally: KeyTally)]]
    {
        guard !keyIDs.isEmpty else { return [:] }
        var histories: [Int64: [(commitID: Int64, tally: KeyTally)]] = [:]
        try db.query(sql: keySlices("SELECT unnest(CAST(\(PostgresArray.literal(integers: keyIDs.sorted())) AS BIGINT[]))",
                                    environment: environment, from: low, through: high)) { row in
            let keyID = row.int64("key_id")
            let slice = StoredStates(row: row, ids: "commit_ids")
            var states = histories[keyID] ?? []
            for index in 0..<slice.count { states.append((slice.ids[index], slice.tally(at: index))) }
            histories[keyID] = states
        }
        for (keyID, states) in histories { histories[keyID] = Self.inCommitOrder(states) }
        return histories
    }
}
