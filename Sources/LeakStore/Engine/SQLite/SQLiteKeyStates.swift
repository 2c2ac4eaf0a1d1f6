/// SQLite's key states, packed (`PackedKeyStates`): a run's states at its commit as blobs of
/// `state_blobs`, and the blobs not settled yet, in batches, settled into `key_state_blocks`, one
/// row a key and environment for the batch. Read through the `leak_states` virtual table
/// (`LeakStatesTable`), which decodes a key's blocks and the blobs not settled yet.
///
/// Blobs are settled in id order, which is the order the runs were stored in; a blob of a
/// pending upload's commit (`PendingUpload`) waits until the upload is published.
struct SQLiteKeyStates: KeyStateStore {
    let db: SQLiteConnection

    /// A blob of up to `StoreTuning.blobStates` states a statement, in key order.
    func append(_ states: [(keyID: Int64, state: KeyTally)], commitID: Int64, environmentID: Int64, settledAtOnce: Bool) throws {
        let byKey = states.sorted { $0.keyID < $1.keyID }
        for start in stride(from: 0, to: byKey.count, by: StoreTuning.blobStates) {
            let insert = try db.statement("INSERT INTO state_blobs (commit_id, environment_id, states) VALUES (?, ?, ?)")
            try insert.bind(commitID, at: 1)
            try insert.bind(environmentID, at: 2)
            try insert.bind(bytes: PackedKeyStates.encode(byKey[start..<min(start + StoreTuning.blobStates, byKey.count)].lazy.map {
                ($0.keyID, $0.state)
            }), at: 3)
            try insert.step()
        }
    }

    func copy(of from: Int64, into: Int64) throws {
        try db.run(sql: """
            INSERT INTO state_blobs (commit_id, environment_id, states)
            SELECT \(into), environment_id, states FROM state_blobs WHERE commit_id = \(from) ORDER BY id
            """)
    }

    /// Each key's states of the batch, merged where one commit has several, become one row of
    /// `key_state_blocks` an environment.
    func settle(maxStates: Int, maxKeys: Int) throws -> (rows: Int, states: Int, full: Bool) {
        var blobIDs: [Int64] = []
        var states = 0
        // Per environment and key, its states in the order stored.
        var byKey: [KeyInEnvironment: [(commitID: Int64, state: KeyTally)]] = [:]
        let pending = try db.statement("""
            SELECT b.id, b.commit_id, b.environment_id, b.states
            FROM state_blobs b INDEXED BY state_blobs_unsettled JOIN commits c ON c.id = b.commit_id
            WHERE b.settled = 0 AND NOT \(PendingUpload.isPlaceholder("c"))
            ORDER BY b.id
            """)
        while states < maxStates, byKey.count < maxKeys, try pending.step() {
            let commitID = pending.int64("commit_id"), environmentID = pending.int64("environment_id")
            try PackedKeyStates.decode(pending.blob("states")) { keyID, state in
                byKey[KeyInEnvironment(environmentID: environmentID, keyID: keyID), default: []].append((commitID, state))
                states += 1
            }
            blobIDs.append(pending.int64("id"))
        }
        pending.reset()
        let full = states >= maxStates || byKey.count >= maxKeys
        guard let batch = blobIDs.last else { return (0, 0, false) }
        let block = try db.statement("""
            INSERT INTO key_state_blocks (key_id, environment_id, batch, first_commit_id, last_commit_id, states)
            VALUES (?, ?, ?, ?, ?, ?)
            """)
        // In key order: each insert lands beside the last one's page.
        for key in byKey.keys.sorted(by: { ($0.keyID, $0.environmentID) < ($1.keyID, $1.environmentID) }) {
            var merged: [(ordinal: Int64, state: KeyTally)] = []
            for entry in byKey[key]!.enumerated().sorted(by: { ($0.element.commitID, $0.offset) < ($1.element.commitID, $1.offset) }) {
                if merged.last?.ordinal == entry.element.commitID {
                    merged[merged.count - 1].state.merge(entry.element.state)
                } else {
                    merged.append((entry.element.commitID, entry.element.state))
                }
            }
            try block.bind(key.keyID, at: 1)
            try block.bind(key.environmentID, at: 2)
            try block.bind(batch, at: 3)
            try block.bind(merged.first!.ordinal, at: 4)
            try block.bind(merged.last!.ordinal, at: 5)
            try block.bind(bytes: PackedKeyStates.encode(merged), at: 6)
            try block.step()
            block.reset()
        }
        let mark = try db.statement("UPDATE state_blobs SET settled = 1 WHERE id = ?")
        for id in blobIDs {
            try mark.bind(id, at: 1)
            try mark.step()
            mark.reset()
        }
        return (blobIDs.count, states, full)
    }

    var settlesInBackground: Bool { false }

    /// The table reads a key newest first.
    func newestCommits(ofScenario scenarioID: Int64, environment: String, projectID: Int64, below: Int64, limit: Int) throws
        -> [Int64]
    {
        var keys: [Int64] = []
        try db.query(sql: "SELECT id FROM leak_keys WHERE scenario_id = \(scenarioID)") { keys.append($0.int64("id")) }
        var newest: Set<Int64> = []
        for keyID in keys {
            try db.query(sql: newestCommitsSQL(ofKey: keyID, environment: environment, projectID: projectID, below: below, low: 0,
                                               limit: limit, orderedFirst: false)) { newest.insert($0.int64("commit_id")) }
        }
        return Array(newest.sorted(by: >).prefix(limit))
    }

    /// The commit's blobs in the environment, decoded as they are.
    func passedKeys(commitID: Int64, environmentID: Int64) throws -> Set<Int64>? {
        var passed: Set<Int64> = []
        let blobs = try db.statement("SELECT states FROM state_blobs WHERE commit_id = ? AND environment_id = ?")
        defer { blobs.reset() }
        try blobs.bind(commitID, at: 1)
        try blobs.bind(environmentID, at: 2)
        while try blobs.step() {
            try PackedKeyStates.decode(blobs.blob("states")) { keyID, state in
                if state.slowestPassUs != nil { passed.insert(keyID) }
            }
        }
        return passed
    }

    /// None: `leak_states` keeps a commit's blobs decoded for the connection's next statements.
    func storedStates(at commitIDs: [Int64], environment: String, atMost limit: Int?) throws
        -> [(commitID: Int64, states: StoredStates)]? { nil }

    /// A row a state: the table's own order, a range a key, each key's commits in order and merged.
    /// A row a state is read by position, the columns selected right above: the diff's hottest loop.
    func visitStates(ofKeys batch: [SQLValue], environment: String, from low: Int64, through high: Int64,
                     _ state: (_ keyID: Int64, _ commitID: Int64, _ tally: KeyTally) -> Void) throws {
        try db.query(sql: """
            SELECT k.id, ls.commit_id, ls.checked_count, ls.leaked_count, ls.late_release_count, ls.error_count
            FROM leak_keys k JOIN leak_states ls ON ls.key_id = k.id
            WHERE k.id IN (\(list: batch))
              AND ls.environment_id = (SELECT id FROM environments WHERE name = \(environment)) AND ls.commit_id BETWEEN \(low) AND \(high)
            """) { row in
            state(row.int64(at: 0), row.int64(at: 1), KeyTally(checked: row.int64(at: 2), leaked: row.int64(at: 3),
                                                               lateRelease: row.int64(at: 4), errors: row.int64(at: 5)))
        }
    }

    /// The virtual table answers by key itself.
    func relation(ofKeys keys: SQL, environment: SQL, from low: SQL, through high: SQL) -> SQL { "leak_states" }

    /// The virtual table's hidden columns, which it applies while reading a commit
    /// (`LeakStatesTable`): a commit of a big run hands SQLite its few telling states.
    func condition(_ filter: KeyTally.Filter, on alias: String) -> String {
        switch filter {
        case .leaking: "\(alias).leaking = 1"
        case .telling: "\(alias).telling = 1"
        }
    }

    func pendingLeft(commitID: Int64) -> SQL { "SELECT 1 FROM state_blobs WHERE commit_id = \(commitID) LIMIT 1" }

    func pendingDelete(commitID: Int64, rows: Int64) -> SQL {
        "DELETE FROM state_blobs WHERE id IN (SELECT id FROM state_blobs WHERE commit_id = \(commitID) ORDER BY id LIMIT \(rows))"
    }

    private struct KeyInEnvironment: Hashable {
        var environmentID: Int64
        var keyID: Int64
    }

    func history(of keyIDs: Set<Int64>, environment: String, from low: Int64, through high: Int64) throws
        -> [Int64: [(commitID: Int64, tally: KeyTally)]]
    {
        var histories: [Int64: [(commitID: Int64, tally: KeyTally)]] = [:]
        // The same text for every batch (padded to `StoreTuning.keysPerStatement` keys). A row a
        // state, read by position, the columns selected right above.
        for chunk in keyIDs.sorted().batches(of: StoreTuning.keysPerStatement) {
            try db.query(sql: """
                SELECT key_id, commit_id, checked_count, leaked_count, late_release_count, error_count FROM leak_states
                WHERE key_id IN (\(list: chunk.padded(to: StoreTuning.keysPerStatement).map(SQLValue.integer)))
                  AND environment_id = (SELECT id FROM environments WHERE name = \(environment)) AND commit_id BETWEEN \(low) AND \(high)
                """) { row in
                histories[row.int64(at: 0), default: []].append((row.int64(at: 1), KeyTally(
                    checked: row.int64(at: 2), leaked: row.int64(at: 3), lateRelease: row.int64(at: 4), errors: row.int64(at: 5))))
            }
        }
        for (keyID, states) in histories { histories[keyID] = Self.inCommitOrder(states) }
        return histories
    }
}
