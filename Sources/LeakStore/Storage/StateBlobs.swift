/// Writes key states packed (`PackedKeyStates`), as `LeakStatesTable` reads them: a run's states
/// at its commit as one row of `state_blobs`, and the blobs not settled yet, in batches, into
/// `key_state_blocks`, one row a key and environment for the batch. On PostgreSQL the same
/// operations write arrays (`StateArrays`); when and how much to settle is decided here for both.
///
/// Blobs are settled in id order, which is the order the runs were stored in; a blob of a
/// pending upload's commit (`PendingUpload`) waits until the upload is published.
enum StateBlobs {
    /// How many commit ids a block of key states may span and still be found by its last commit
    /// alone, on both engines: a block reaching commits `low` through `high` that is no wider
    /// ends by `high + narrowSpan`; the wider ones (a batch that also settled a re-run of an old
    /// commit) are looked for apart, on an index of their own whose predicate spells the same
    /// number (`0013_pg_key_state_blocks_wide.sql`, `0015_key_state_blocks_by_last_commit.sql`).
    /// 256 uploads (`CommitOrder.spacing` ids each); a settling batch spans a few dozen.
    static let narrowSpan = 256 * CommitOrder.spacing

    /// Appends a run's states at `commitID` in `environmentID` (each key once): a blob of up to
    /// `StoreTuning.blobStates` of them, in key order.
    /// `settledAtOnce`: the caller settles every blob before its transaction ends (`RowPacker`),
    /// so PostgreSQL need not keep the states by key meanwhile (`unsettled_key_states`).
    static func append(_ states: [(keyID: Int64, state: KeyTally)], commitID: Int64, environmentID: Int64,
                       settledAtOnce: Bool = false, db: any SQLConnection) throws {
        if let postgres = db as? PostgresConnection {
            return try StateArrays.append(states, commitID: commitID, environmentID: environmentID, byKeyUntilSettled: !settledAtOnce,
                                          db: postgres)
        }
        guard let db = db as? SQLiteConnection else { throw LeakStoreError.unavailable("packed key states need SQLite or PostgreSQL") }
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

    /// The keys with a passing check at `commitID` in `environmentID` (a `slowest_pass_us`), from
    /// the commit's blobs there as stored.
    static func passedKeys(commitID: Int64, environmentID: Int64, db: SQLiteConnection) throws -> Set<Int64> {
        var passed: Set<Int64> = []
        let blobs = try db.statement("SELECT states FROM state_blobs WHERE commit_id = ? AND environment_id = ?")
        defer { blobs.reset() }
        try blobs.bind(commitID, at: 1)
        try blobs.bind(environmentID, at: 2)
        while try blobs.step() {
            try PackedKeyStates.decode(blobs.blob(at: 0)) { keyID, state in
                if state.slowestPassUs != nil { passed.insert(keyID) }
            }
        }
        return passed
    }

    /// Adds commit `from`'s blobs to commit `into` as new blobs (after every blob there is), in
    /// their order: a pending upload published onto a commit with runs. They settle later, with
    /// the blobs after them.
    static func copy(of from: Int64, into: Int64, session: WriteSession, db: any SQLConnection) throws {
        defer { session.unsettledStates = nil }
        if let postgres = db as? PostgresConnection { return try StateArrays.copy(of: from, into: into, db: postgres) }
        try db.run("""
            INSERT INTO state_blobs (commit_id, environment_id, states)
            SELECT ?2, environment_id, states FROM state_blobs WHERE commit_id = ?1 ORDER BY id
            """, [.integer(from), .integer(into)])
    }

    /// Settles one batch where more than a batch waits (a big run just published): true when
    /// it stopped at a limit, so that the caller runs it again in a transaction of its own.
    /// PostgreSQL settles in the background instead (`settlesInBackground`): nothing.
    static func settleBacklog(session: WriteSession, db: any SQLConnection) throws -> Bool {
        guard !settlesInBackground(db) else { return false }
        let settled = try settle(db: db)
        if !settled.full { session.unsettledStates = 0 }
        return settled.full
    }

    /// Whether an upload leaves settling to the background (`PostgresStatistics.settleWaitingStates`),
    /// not doing it in its own transaction: on PostgreSQL, where a batch is a statement of
    /// `GROUP BY`s and sorts over its states and each writer waits only for itself, an upload that
    /// found settling due would answer that much later. On SQLite one writer at a time: a
    /// settling in the background would hold up every upload behind it as long, and is quick
    /// inside an upload.
    static func settlesInBackground(_ db: any SQLConnection) -> Bool { db is PostgresConnection }

    /// Settles once `added` more states leave `StoreTuning.settleStates` or more unsettled (the session
    /// keeps the count; when it does not know it, it settles a batch and starts counting).
    /// PostgreSQL settles in the background instead (`settlesInBackground`): nothing.
    static func settleIfDue(added: Int, session: WriteSession, db: any SQLConnection) throws {
        guard !settlesInBackground(db) else { return }
        if let known = session.unsettledStates, known + added < StoreTuning.settleStates {
            session.unsettledStates = known + added
            return
        }
        let settled = try settle(db: db)
        session.unsettledStates = settled.blobs == 0 ? 0 : max(0, (session.unsettledStates ?? 0) + added - settled.states)
    }

    /// Settles the oldest blobs not settled yet, at least one and about `maxStates` states' and
    /// `maxKeys` keys' worth: each key's states of the batch, merged where one commit has
    /// several, become one row of `key_state_blocks` an environment. Returns how many blobs and
    /// states it settled, and whether it stopped at a limit (more may wait). On PostgreSQL, rows
    /// of `state_arrays` (`StateArrays.settle`: one statement, its keys counted by its states at one commit).
    @discardableResult
    static func settle(maxStates: Int = StoreTuning.settleStates, maxKeys: Int = StoreTuning.settleKeys,
                       db: any SQLConnection) throws -> (blobs: Int, states: Int, full: Bool) {
        if let postgres = db as? PostgresConnection {
            let settled = try StateArrays.settle(maxStates: maxStates, maxKeys: maxKeys, db: postgres)
            return (settled.rows, settled.states, settled.full)
        }
        guard let db = db as? SQLiteConnection else { throw LeakStoreError.unavailable("packed key states need SQLite or PostgreSQL") }
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
            let commitID = pending.int64(at: 1), environmentID = pending.int64(at: 2)
            try PackedKeyStates.decode(pending.blob(at: 3)) { keyID, state in
                byKey[KeyInEnvironment(environmentID: environmentID, keyID: keyID), default: []].append((commitID, state))
                states += 1
            }
            blobIDs.append(pending.int64(at: 0))
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

    /// Packs rows of the row-a-state layout, read in (commit, environment, key) order — an older
    /// database's, or another engine's — a blob a commit and environment, and settles them all at
    /// the end. Each row is a key's merged state, so each blob holds its commit's as it was.
    struct RowPacker {
        let db: any SQLConnection
        private var blob: (commitID: Int64, environmentID: Int64, states: [(keyID: Int64, state: KeyTally)])?
        private(set) var rows: Int64 = 0

        init(db: any SQLConnection) { self.db = db }

        /// The row's columns from `first` on, in the order `leak_states` has them.
        mutating func add(_ row: any SQLRow, from first: Int32 = 0) throws {
            let commitID = row.int64(at: first), environmentID = row.int64(at: first + 1)
            if blob?.commitID != commitID || blob?.environmentID != environmentID {
                try flush()
                blob = (commitID, environmentID, [])
            }
            func optional(_ column: Int32) -> Int64? { row.isNull(at: first + column) ? nil : row.int64(at: first + column) }
            blob?.states.append((row.int64(at: first + 2), KeyTally(
                checked: row.int64(at: first + 3), leaked: row.int64(at: first + 4), lateRelease: row.int64(at: first + 5),
                errors: row.int64(at: first + 6), passedSiteID: optional(7), slowestPassUs: optional(8))))
            rows += 1
        }

        /// Appends the last blob and settles every blob there is to settle.
        mutating func finish() throws {
            try flush()
            while try StateBlobs.settle(maxStates: .max, maxKeys: .max, db: db).blobs > 0 {}
        }

        private mutating func flush() throws {
            guard let blob else { return }
            try StateBlobs.append(blob.states, commitID: blob.commitID, environmentID: blob.environmentID, settledAtOnce: true, db: db)
            self.blob = nil
        }
    }

    /// `leak_states`'s columns, in order, for readers of rows `RowPacker.add` takes.
    static let stateColumns = """
        commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count,
        passed_site_id, slowest_pass_us
        """

    private struct KeyInEnvironment: Hashable {
        var environmentID: Int64
        var keyID: Int64
    }
}
