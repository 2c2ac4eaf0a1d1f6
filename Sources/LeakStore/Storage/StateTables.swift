/// Where key states live (migration 14): a commit's states are all in one table — in
/// `leak_states_recent`, in commit order, while the commit is listed in `recent_state_commits`;
/// in `leak_states`, in key order, otherwise. The one owner of that rule: writers ask it which
/// table a commit's states go to, readers of one commit's states which table holds them, and
/// readers of key ranges read every table it names.
///
/// New commits of runs stored in one transaction start recent where the engine keeps recent
/// states (`SQLConnection.keepsRecentStates`); `LeakStore.settleRecentStates` moves the oldest
/// of them to `leak_states` in batches. A sliced run's pending commit (`LeakStore.ingest`) and
/// every commit on PostgreSQL are settled from the start.
package enum StateTables {
    static let settled = "leak_states"
    static let recent = "leak_states_recent"
    static let both = [settled, recent]

    /// Every key state, settled or recent, as a table expression named `ls` (`FROM \(StateTables.everyState)`):
    /// for counts over the whole database (the benchmarks, the crash test, the tests), not for
    /// the queries, whose plans read each table by its own indexes.
    package static let everyState = """
        (SELECT commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count,
                passed_site_id, slowest_pass_us FROM leak_states
         UNION ALL
         SELECT commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count,
                passed_site_id, slowest_pass_us FROM leak_states_recent) AS ls
        """

    /// The tables that may hold states, for readers of key ranges: both where recent states are
    /// kept, `leak_states` alone on PostgreSQL.
    static func all(_ db: any SQLConnection) -> [String] {
        db.keepsRecentStates ? both : [settled]
    }

    /// The table holding commit `commitID`'s states.
    static func table(of commitID: Int64, _ db: any SQLConnection) throws -> String {
        guard db.keepsRecentStates else { return settled }
        return try db.scalarInt("SELECT 1 FROM recent_state_commits WHERE commit_id = ?", [.integer(commitID)]) != nil
            ? recent : settled
    }

    /// The table new states of commit `commitID` go to, making the commit recent when it has no
    /// states yet and the engine keeps recent states. Returns the table, and whether the commit
    /// became recent here.
    static func tableForNewStates(of commitID: Int64, _ db: any SQLConnection) throws -> (table: String, madeRecent: Bool) {
        guard db.keepsRecentStates else { return (settled, false) }
        var listed = false, settledStates = false
        try db.query("""
            SELECT EXISTS (SELECT 1 FROM recent_state_commits WHERE commit_id = ?1),
                   EXISTS (SELECT 1 FROM leak_states WHERE commit_id = ?1)
            """, [.integer(commitID)]) { row in
            listed = row.int64(at: 0) != 0
            settledStates = row.int64(at: 1) != 0
        }
        if listed { return (recent, false) }
        if settledStates { return (settled, false) }
        try db.run("INSERT INTO recent_state_commits (commit_id) VALUES (?)", [.integer(commitID)])
        return (recent, true)
    }

    /// The partial index of `table`'s telling states (leaked or released late) by commit, as an
    /// `INDEXED BY` hint; none for `leak_states_recent`, whose commits are small and in its own order.
    static func tellingHint(_ table: String) -> String {
        table == settled ? " INDEXED BY leak_states_telling" : ""
    }

    /// The partial index of `table`'s leaked states by key, as an `INDEXED BY` hint; for
    /// `leak_states_recent`, its index by key (a key has a few dozen recent states at most).
    static func leakingHint(_ table: String) -> String {
        table == settled ? " INDEXED BY leak_states_leaking" : " INDEXED BY leak_states_recent_by_key"
    }
}
