/// Key states packed on PostgreSQL (migration 12): what `StateBlobs` is on SQLite, in arrays
/// PostgreSQL reads itself, since it has no virtual tables. A run's states at its commit are one
/// row of `state_arrays` (a column an array, in key order), the truth; the rows not settled yet
/// become, in batches, rows of `key_state_blocks`, one a group of `keyGroup` neighbouring keys
/// and environment for the batch. `leak_states` is a view of the first, by commit; a read of keys'
/// histories reads the second through `keyStates`.
///
/// Rows are settled in id order, which is the order the runs were stored in; a row of a pending
/// upload's commit (`PendingUpload`) waits until the upload is published. The policy (when, how
/// much) is `StateBlobs`'s, for both engines.
enum StateArrays {
    /// How many keys (`key_id / keyGroup`) share a block: rows of a few kilobytes, which
    /// PostgreSQL compresses, where a row a key (~50 states, under 2 kB) stayed as it was.
    static let keyGroup = 8

    /// Appends a run's states at `commitID` in `environmentID` (each key once): a row of up to
    /// `StateBlobs.blobStates` of them, in key order.
    static func append(_ states: [(keyID: Int64, state: KeyAggregate)], commitID: Int64, environmentID: Int64,
                       db: PostgresConnection) throws {
        let byKey = states.sorted { $0.keyID < $1.keyID }
        for start in stride(from: 0, to: byKey.count, by: StateBlobs.blobStates) {
            let chunk = byKey[start..<min(start + StateBlobs.blobStates, byKey.count)]
            var columns = Array(repeating: "{", count: 7)
            for (index, (keyID, state)) in chunk.enumerated() {
                let values: [SQLValue] = [
                    .integer(keyID), .integer(state.checked), .integer(state.leaked), .integer(state.lateRelease),
                    .integer(state.errors), state.passedSiteID.map(SQLValue.integer) ?? .null,
                    state.slowestPassUs.map(SQLValue.integer) ?? .null,
                ]
                for (column, value) in values.enumerated() {
                    if index > 0 { columns[column].append(",") }
                    PostgresArray.append(value, to: &columns[column])
                }
            }
            try db.run("""
                INSERT INTO state_arrays (commit_id, environment_id, state_count, key_ids, checked, leaked, late, errors,
                                          passed_site_ids, slowest_pass_us)
                VALUES (?, ?, ?, CAST(? AS INTEGER[]), CAST(? AS INTEGER[]), CAST(? AS INTEGER[]), CAST(? AS INTEGER[]),
                        CAST(? AS INTEGER[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[]))
                """, [.integer(commitID), .integer(environmentID), .integer(Int64(chunk.count))] + columns.map { .text($0 + "}") })
        }
    }

    /// Adds commit `from`'s rows to commit `into` as new rows (after every row there is), in
    /// their order: a pending upload published onto a commit with runs.
    static func copy(of from: Int64, into: Int64, db: PostgresConnection) throws {
        try db.run("""
            INSERT INTO state_arrays (commit_id, environment_id, state_count, key_ids, checked, leaked, late, errors,
                                      passed_site_ids, slowest_pass_us)
            SELECT CAST(?2 AS BIGINT), environment_id, state_count, key_ids, checked, leaked, late, errors,
                   passed_site_ids, slowest_pass_us
            FROM state_arrays WHERE commit_id = ?1 ORDER BY id
            """, [.integer(from), .integer(into)])
    }

    /// Settles the oldest rows not settled yet (published ones: not a placeholder commit's), at
    /// least one and about `maxStates` states' worth, in one statement: each key's states of the
    /// batch, merged where one commit has several, go to its group's block of the batch in each
    /// environment. A row another server is settling is left to it (the update skips a row
    /// found settled once its lock is free). Returns how many rows and states it settled, and
    /// whether rows were left past the limit.
    static func settle(maxStates: Int, db: PostgresConnection) throws -> (rows: Int, states: Int, full: Bool) {
        var result = (rows: 0, states: 0, full: false)
        try db.query("""
            WITH waiting AS (
                SELECT a.id, sum(a.state_count) OVER (ORDER BY a.id) - a.state_count AS before
                FROM state_arrays a JOIN commits c ON c.id = a.commit_id
                WHERE NOT a.settled AND NOT \(PendingUpload.isPlaceholder("c"))
            ), settled AS (
                UPDATE state_arrays a SET settled = true
                FROM waiting w WHERE a.id = w.id AND (w.before < ?1 OR w.before = 0) AND NOT a.settled
                RETURNING a.id, a.commit_id, a.environment_id, a.state_count, a.key_ids, a.checked, a.leaked, a.late, a.errors
            ), merged AS (
                SELECT s.key_id, r.environment_id, r.commit_id, CAST(sum(s.checked) AS INTEGER) AS checked,
                       CAST(sum(s.leaked) AS INTEGER) AS leaked, CAST(sum(s.late) AS INTEGER) AS late,
                       CAST(sum(s.errors) AS INTEGER) AS errors
                FROM settled r CROSS JOIN LATERAL unnest(r.key_ids, r.checked, r.leaked, r.late, r.errors)
                    AS s(key_id, checked, leaked, late, errors)
                GROUP BY s.key_id, r.environment_id, r.commit_id
            ), blocks AS (
                INSERT INTO key_state_blocks (key_group, environment_id, last_commit_id, batch, first_commit_id, key_ids,
                                              commit_ids, checked, leaked, late, errors)
                SELECT m.key_id / \(keyGroup), m.environment_id, max(m.commit_id), (SELECT max(id) FROM settled), min(m.commit_id),
                       array_agg(m.key_id ORDER BY m.key_id, m.commit_id), array_agg(m.commit_id ORDER BY m.key_id, m.commit_id),
                       array_agg(m.checked ORDER BY m.key_id, m.commit_id), array_agg(m.leaked ORDER BY m.key_id, m.commit_id),
                       array_agg(m.late ORDER BY m.key_id, m.commit_id), array_agg(m.errors ORDER BY m.key_id, m.commit_id)
                FROM merged m GROUP BY m.key_id / \(keyGroup), m.environment_id
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM settled), (SELECT coalesce(sum(state_count), 0) FROM settled),
                   (SELECT count(*) FROM waiting WHERE before >= ?1 AND before > 0), (SELECT count(*) FROM blocks)
            """, [.integer(Int64(maxStates))]) { row in
            result = (Int(row.int64(at: 0)), Int(row.int64(at: 1)), row.int64(at: 2) > 0)
        }
        return result
    }

    /// The states of the keys `keys` yields (SQL: one column of key ids; a subquery or a `VALUES`
    /// list) in the environment `environment` (an SQL expression) at commits `low` through `high`
    /// (SQL expressions), merged where several runs stored one: a relation with the columns of
    /// `leak_states` but for the passing site and wait, which no read by key asks for. Read from
    /// the blocks of the keys' groups that reach the range, and the rows not settled yet.
    static func keyStates(_ keys: String, environment: String, from low: String, through high: String) -> String {
        """
        (SELECT u.key_id, u.environment_id, u.commit_id, CAST(sum(u.checked) AS INTEGER) AS checked_count,
                CAST(sum(u.leaked) AS INTEGER) AS leaked_count, CAST(sum(u.late) AS INTEGER) AS late_release_count,
                CAST(sum(u.errors) AS INTEGER) AS error_count
         FROM (SELECT CAST(s.key_id AS BIGINT) AS key_id, b.environment_id, s.commit_id, s.checked, s.leaked, s.late, s.errors
               FROM key_state_blocks b
                    CROSS JOIN LATERAL unnest(b.key_ids, b.commit_ids, b.checked, b.leaked, b.late, b.errors)
                        AS s(key_id, commit_id, checked, leaked, late, errors)
               WHERE b.key_group IN (SELECT w.id / \(keyGroup) FROM (\(keys)) AS w(id))
                 AND b.environment_id = \(environment) AND b.last_commit_id >= \(low) AND b.first_commit_id <= \(high)
                 AND s.key_id IN (SELECT w.id FROM (\(keys)) AS w(id)) AND s.commit_id BETWEEN \(low) AND \(high)
               UNION ALL
               SELECT CAST(s.key_id AS BIGINT), a.environment_id, a.commit_id, s.checked, s.leaked, s.late, s.errors
               FROM state_arrays a
                    CROSS JOIN LATERAL unnest(a.key_ids, a.checked, a.leaked, a.late, a.errors)
                        AS s(key_id, checked, leaked, late, errors)
               WHERE NOT a.settled AND a.environment_id = \(environment) AND a.commit_id BETWEEN \(low) AND \(high)
                 AND s.key_id IN (SELECT w.id FROM (\(keys)) AS w(id))) AS u
         GROUP BY u.key_id, u.environment_id, u.commit_id)
        """
    }
}
