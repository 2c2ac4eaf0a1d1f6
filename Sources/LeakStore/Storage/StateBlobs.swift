/// Writes key states packed (`PackedKeyStates`), as `LeakStatesTable` reads them: a run's states
/// at its commit as one row of `state_blobs`, and the blobs not settled yet, in batches, into
/// `key_state_blocks`, one row a key and environment for the batch.
///
/// Blobs are settled in id order, which is the order the runs were stored in; a blob of a
/// pending upload's commit (`PendingUpload`) waits until the upload is published.
enum StateBlobs {
    /// About how many states one settling moves: a few dozen CI runs' worth, so that a key gets
    /// a row for a few dozen commits, not one a commit.
    static let settleStates = 32_000

    /// Appends a run's states at `commitID` in `environmentID` (each key once).
    static func append(_ states: [(keyID: Int64, state: KeyAggregate)], commitID: Int64, environmentID: Int64,
                       db: SQLiteConnection) throws {
        guard !states.isEmpty else { return }
        let insert = try db.statement("INSERT INTO state_blobs (commit_id, environment_id, states) VALUES (?, ?, ?)")
        try insert.bind(commitID, at: 1)
        try insert.bind(environmentID, at: 2)
        let byKey = states.sorted { $0.keyID < $1.keyID }
        try insert.bind(bytes: PackedKeyStates.encode(byKey.lazy.map { ($0.keyID, $0.state) }), at: 3)
        try insert.step()
    }

    /// Settles the oldest blobs not settled yet, at least one and about `maxStates` states'
    /// worth: each key's states of the batch, merged where one commit has several, become one row
    /// of `key_state_blocks` an environment. Returns how many blobs it settled.
    @discardableResult
    static func settle(maxStates: Int = settleStates, db: SQLiteConnection) throws -> Int {
        var blobIDs: [Int64] = []
        var states = 0
        // Per environment and key, its states in the order stored.
        var byKey: [KeyInEnvironment: [(commitID: Int64, state: KeyAggregate)]] = [:]
        let pending = try db.statement("""
            SELECT b.id, b.commit_id, b.environment_id, b.states
            FROM state_blobs b INDEXED BY state_blobs_unsettled JOIN commits c ON c.id = b.commit_id
            WHERE b.settled = 0 AND c.sha NOT LIKE 'pending:%'
            ORDER BY b.id
            """)
        while states < maxStates, try pending.step() {
            let commitID = pending.int64(at: 1), environmentID = pending.int64(at: 2)
            try PackedKeyStates.decode(pending.blob(at: 3)) { keyID, state in
                byKey[KeyInEnvironment(environmentID: environmentID, keyID: keyID), default: []].append((commitID, state))
                states += 1
            }
            blobIDs.append(pending.int64(at: 0))
        }
        pending.reset()
        guard let batch = blobIDs.last else { return 0 }
        let block = try db.statement("""
            INSERT INTO key_state_blocks (key_id, environment_id, batch, first_commit_id, last_commit_id, states)
            VALUES (?, ?, ?, ?, ?, ?)
            """)
        // In key order: each insert lands beside the last one's page.
        for key in byKey.keys.sorted(by: { ($0.keyID, $0.environmentID) < ($1.keyID, $1.environmentID) }) {
            var merged: [(ordinal: Int64, state: KeyAggregate)] = []
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
        return blobIDs.count
    }

    private struct KeyInEnvironment: Hashable {
        var environmentID: Int64
        var keyID: Int64
    }
}
