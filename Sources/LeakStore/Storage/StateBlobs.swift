/// When and how much of the packed key states to settle, decided here for both engines; the
/// packing itself is each engine's (`KeyStateStore`: SQLite's blobs in `SQLiteKeyStates`,
/// PostgreSQL's arrays in `StateArrays`). Also the packer of rows of the row-a-state layout.
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
        try db.keyStates.append(states, commitID: commitID, environmentID: environmentID, settledAtOnce: settledAtOnce)
    }

    /// Adds commit `from`'s blobs to commit `into` as new blobs (after every blob there is), in
    /// their order: a pending upload published onto a commit with runs. They settle later, with
    /// the blobs after them.
    static func copy(of from: Int64, into: Int64, session: WriteSession, db: any SQLConnection) throws {
        defer { session.unsettledStates = nil }
        try db.keyStates.copy(of: from, into: into)
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
    static func settlesInBackground(_ db: any SQLConnection) -> Bool { db.keyStates.settlesInBackground }

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
        let settled = try db.keyStates.settle(maxStates: maxStates, maxKeys: maxKeys)
        return (settled.rows, settled.states, settled.full)
    }

    /// Packs rows of the row-a-state layout, read in (commit, environment, key) order — an older
    /// database's, or another engine's — a blob a commit and environment, and settles them all at
    /// the end. Each row is a key's merged state, so each blob holds its commit's as it was.
    struct RowPacker {
        let db: any SQLConnection
        private var blob: (commitID: Int64, environmentID: Int64, states: [(keyID: Int64, state: KeyTally)])?
        private(set) var rows: Int64 = 0

        init(db: any SQLConnection) { self.db = db }

        /// A row of `leak_states`, read by its columns' names (`stateColumns`).
        mutating func add(_ row: any SQLRow) throws {
            let commitID = row.int64("commit_id"), environmentID = row.int64("environment_id")
            if blob?.commitID != commitID || blob?.environmentID != environmentID {
                try flush()
                blob = (commitID, environmentID, [])
            }
            func optional(_ column: String) -> Int64? { row.isNull(column) ? nil : row.int64(column) }
            blob?.states.append((row.int64("key_id"), KeyTally(
                checked: row.int64("checked_count"), leaked: row.int64("leaked_count"), lateRelease: row.int64("late_release_count"),
                errors: row.int64("error_count"), passedSiteID: optional("passed_site_id"), slowestPassUs: optional("slowest_pass_us"))))
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

    /// `leak_states`'s columns, which `RowPacker.add` reads.
    static let stateColumns = """
        commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count,
        passed_site_id, slowest_pass_us
        """

}
