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
    /// PostgreSQL compresses, where a row a key stayed under its compression threshold.
    static let keyGroup = 8
    /// `keyGroup` and `StateBlobs.narrowSpan` as the statements' text.
    private static let group = String(keyGroup), narrowSpan = String(StateBlobs.narrowSpan)

    /// Appends a run's states at `commitID` in `environmentID` (each key once): a row of up to
    /// `StoreTuning.blobStates` of them, in key order; with each state a row of
    /// `unsettled_key_states` until it settles (`byKeyUntilSettled`: not when the caller settles
    /// everything in the same transaction — an upgrade's batch, a copy — where states written
    /// there and deleted again only leave the table dead rows).
    static func append(_ states: [(keyID: Int64, state: KeyTally)], commitID: Int64, environmentID: Int64,
                       byKeyUntilSettled: Bool = true, db: PostgresConnection) throws {
        let byKey = states.sorted { $0.keyID < $1.keyID }
        for start in stride(from: 0, to: byKey.count, by: StoreTuning.blobStates) {
            let chunk = byKey[start..<min(start + StoreTuning.blobStates, byKey.count)]
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
            let arrays = columns.map { $0 + "}" }
            try db.run(sql: """
                WITH added AS (
                    INSERT INTO state_arrays (commit_id, environment_id, state_count, key_ids, checked, leaked, late, errors,
                                              passed_site_ids, slowest_pass_us)
                    VALUES (\(commitID), \(environmentID), \(chunk.count), CAST(\(arrays[0]) AS INTEGER[]), CAST(\(arrays[1]) AS INTEGER[]),
                            CAST(\(arrays[2]) AS INTEGER[]), CAST(\(arrays[3]) AS INTEGER[]), CAST(\(arrays[4]) AS INTEGER[]),
                            CAST(\(arrays[5]) AS BIGINT[]), CAST(\(arrays[6]) AS BIGINT[]))
                    RETURNING id, commit_id, environment_id, key_ids, checked, leaked, late, errors)
                \(raw: byKeyUntilSettled ? unsettledInsert("added") : "SELECT count(*) FROM added")
                """)
        }
    }

    /// Adds commit `from`'s rows to commit `into` as new rows (after every row there is), in
    /// their order: a pending upload published onto a commit with runs.
    static func copy(of from: Int64, into: Int64, db: PostgresConnection) throws {
        try db.run(sql: """
            WITH added AS (
                INSERT INTO state_arrays (commit_id, environment_id, state_count, key_ids, checked, leaked, late, errors,
                                          passed_site_ids, slowest_pass_us)
                SELECT CAST(\(into) AS BIGINT), environment_id, state_count, key_ids, checked, leaked, late, errors,
                       passed_site_ids, slowest_pass_us
                FROM state_arrays WHERE commit_id = \(from) ORDER BY id
                RETURNING id, commit_id, environment_id, key_ids, checked, leaked, late, errors)
            \(raw: unsettledInsert("added"))
            """)
    }

    /// Each state of the `state_arrays` rows `rows` (a CTE returning their id, commit,
    /// environment and the arrays of keys and counts) as a row of `unsettled_key_states`.
    private static func unsettledInsert(_ rows: String) -> String {
        """
        INSERT INTO unsettled_key_states (key_id, environment_id, commit_id, array_id, checked, leaked, late, errors)
        SELECT s.key_id, r.environment_id, r.commit_id, r.id, s.checked, s.leaked, s.late, s.errors
        FROM \(rows) r CROSS JOIN LATERAL unnest(r.key_ids, r.checked, r.leaked, r.late, r.errors) AS s(key_id, checked, leaked, late, errors)
        """
    }

    /// Removes up to `rows` of commit `commitID`'s rows, with their states in `unsettled_key_states`: a
    /// pending upload's, a slice at a time.
    static func removal(commitID: Int64, rows: Int64) -> SQL {
        """
        WITH gone AS (
            DELETE FROM state_arrays WHERE id IN (SELECT id FROM state_arrays WHERE commit_id = \(commitID) ORDER BY id LIMIT \(rows))
            RETURNING id)
        DELETE FROM unsettled_key_states WHERE array_id IN (SELECT id FROM gone)
        """
    }

    /// The rows of `state_arrays` (`a`) that wait to be settled: not settled yet, and published
    /// (a pending upload's, at its placeholder commit `c`, wait for its publish). A FROM and WHERE.
    static let waitingRows = """
        state_arrays a JOIN commits c ON c.id = a.commit_id WHERE NOT a.settled AND NOT \(PendingUpload.isPlaceholder("c"))
        """

    /// Settles the oldest rows not settled yet (published ones: not a placeholder commit's), at
    /// least one and about `maxStates` states' worth, in one statement: each key's states of the
    /// batch, merged where one commit has several, go to its group's block of the batch in each
    /// environment. A row another server is settling is left to it (the update skips a row
    /// found settled once its lock is free). Returns how many rows and states it settled, and
    /// whether rows were left past the limit.
    ///
    /// `maxKeys` bounds the keys as SQLite's settling does (rows are taken while the batch has
    /// fewer keys), counted without reading the arrays: a run's states at its commit are each
    /// of another key, over one row or several (a big run's slices), so a batch has about as
    /// many keys as the most states it holds at one commit and environment (a re-run counts
    /// twice), and no row is taken once that reaches `maxKeys`. A big run settles a few thousand
    /// keys a statement, so that no statement holds the upkeep long.
    static func settle(maxStates: Int, maxKeys: Int, db: PostgresConnection) throws -> (rows: Int, states: Int, full: Bool) {
        var result = (rows: 0, states: 0, full: false)
        try db.query(sql: """
            WITH waiting AS (
                SELECT g.id, sum(g.state_count) OVER (ORDER BY g.id) - g.state_count AS before,
                       coalesce(max(g.at_commit) OVER (ORDER BY g.id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS widest
                FROM (SELECT a.id, a.state_count,
                             sum(a.state_count) OVER (PARTITION BY a.commit_id, a.environment_id ORDER BY a.id) AS at_commit
                      FROM \(raw: waitingRows)) AS g
            ), settled AS (
                UPDATE state_arrays a SET settled = true
                FROM waiting w WHERE a.id = w.id AND ((w.before < \(maxStates) AND w.widest < \(maxKeys)) OR w.before = 0) AND NOT a.settled
                RETURNING a.id, a.commit_id, a.environment_id, a.state_count, a.key_ids, a.checked, a.leaked, a.late, a.errors
            ), cleared AS (
                DELETE FROM unsettled_key_states u USING settled r WHERE u.array_id = r.id
            ), merged AS (
                SELECT s.key_id, r.environment_id, r.commit_id, CAST(sum(s.checked) AS INTEGER) AS checked,
                       CAST(sum(s.leaked) AS INTEGER) AS leaked, CAST(sum(s.late) AS INTEGER) AS late,
                       CAST(sum(s.errors) AS INTEGER) AS errors
                FROM settled r CROSS JOIN LATERAL unnest(r.key_ids, r.checked, r.leaked, r.late, r.errors)
                    AS s(key_id, checked, leaked, late, errors)
                GROUP BY s.key_id, r.environment_id, r.commit_id
            ), starts AS (
                -- Where each key of a group starts in its block: one past the states of the keys
                -- of the group before it. (No apostrophe in this text: it would open a quote.)
                SELECT g.key_group, g.environment_id,
                       array_agg(CAST(1 + coalesce(g.before, 0) AS INTEGER) ORDER BY g.slot) AS key_starts
                FROM (SELECT n.key_group, n.environment_id, n.slot,
                             sum(count(m.key_id)) OVER (PARTITION BY n.key_group, n.environment_id ORDER BY n.slot
                                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
                      FROM (SELECT DISTINCT key_id / \(raw: group) AS key_group, environment_id FROM merged) AS p
                           CROSS JOIN LATERAL (SELECT p.key_group, p.environment_id, slot
                                               FROM generate_series(0, \(raw: group)) AS slot) AS n
                           LEFT JOIN merged m ON m.key_id = n.key_group * \(raw: group) + n.slot AND m.environment_id = n.environment_id
                      GROUP BY n.key_group, n.environment_id, n.slot) AS g
                GROUP BY g.key_group, g.environment_id
            ), blocks AS (
                INSERT INTO key_state_blocks (key_group, environment_id, last_commit_id, batch, first_commit_id, key_starts,
                                              commit_ids, checked, leaked, late, errors)
                SELECT a.key_group, a.environment_id, a.last_commit_id, (SELECT max(id) FROM settled), a.first_commit_id,
                       t.key_starts, a.commit_ids, a.checked, a.leaked, a.late, a.errors
                FROM (SELECT m.key_id / \(raw: group) AS key_group, m.environment_id, max(m.commit_id) AS last_commit_id,
                             min(m.commit_id) AS first_commit_id, array_agg(m.commit_id ORDER BY m.key_id, m.commit_id) AS commit_ids,
                             array_agg(m.checked ORDER BY m.key_id, m.commit_id) AS checked,
                             array_agg(m.leaked ORDER BY m.key_id, m.commit_id) AS leaked,
                             array_agg(m.late ORDER BY m.key_id, m.commit_id) AS late,
                             array_agg(m.errors ORDER BY m.key_id, m.commit_id) AS errors
                      FROM merged m GROUP BY m.key_id / \(raw: group), m.environment_id) AS a
                     JOIN starts t ON t.key_group = a.key_group AND t.environment_id = a.environment_id
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM settled) AS rows, (SELECT coalesce(sum(state_count), 0) FROM settled) AS states,
                   (SELECT count(*) FROM waiting WHERE (before >= \(maxStates) OR widest >= \(maxKeys)) AND before > 0) AS left_over,
                   (SELECT count(*) FROM blocks) AS blocks
            """) { row in
            result = (row.int("rows"), row.int("states"), row.int64("left_over") > 0)
        }
        return result
    }

    /// The states of the keys `keys` yields (SQL: one column of key ids; a subquery or a `VALUES`
    /// list) in the environment `environment` (an SQL expression) at commits `low` through `high`
    /// (SQL expressions), merged where several runs stored one: a relation with the columns of
    /// `leak_states` but for the passing site and wait, which no read by key asks for. Read from
    /// each key's slice (`key_starts`) of the blocks of its group that reach the range (unnesting
    /// every array of a block reads eight times the states wanted; an element read by subscript
    /// decompresses its array again each time), and from the states not settled yet
    /// (`unsettled_key_states`). Reads of
    /// many states take the slices themselves (`keySlices`).
    static func keyStates(_ keys: SQL, environment: SQL, from low: SQL, through high: SQL) -> SQL {
        """
        (SELECT u.key_id, u.environment_id, u.commit_id, CAST(sum(u.checked) AS INTEGER) AS checked_count,
                CAST(sum(u.leaked) AS INTEGER) AS leaked_count, CAST(sum(u.late) AS INTEGER) AS late_release_count,
                CAST(sum(u.errors) AS INTEGER) AS error_count
         FROM (SELECT w.id AS key_id, b.environment_id, s.commit_id, s.checked, s.leaked, s.late, s.errors
               FROM \(blockSlices(keys, environment: environment, from: low, through: high))
                    CROSS JOIN LATERAL unnest(b.commit_ids[p.first:p.last], b.checked[p.first:p.last], b.leaked[p.first:p.last],
                                              b.late[p.first:p.last], b.errors[p.first:p.last])
                        AS s(commit_id, checked, leaked, late, errors)
               WHERE s.commit_id BETWEEN \(low) AND \(high)
               UNION ALL
               SELECT n.key_id, n.environment_id, n.commit_id, n.checked, n.leaked, n.late, n.errors
               FROM (\(keys)) AS w(id)
                    JOIN unsettled_key_states n ON n.key_id = w.id AND n.environment_id = \(environment)
                                                AND n.commit_id BETWEEN \(low) AND \(high)) AS u
         GROUP BY u.key_id, u.environment_id, u.commit_id)
        """
    }

    /// The states of the keys `keys` yields (as `keyStates` takes them) in `environment` that
    /// may fall at commits `low` through `high`, not unnested: a row a key and block (its slice),
    /// and a row a key for its states not settled yet, each with the columns `key_id`,
    /// `commit_ids`, `checked`, `leaked`, `late` and `errors` (arrays of the same length, in
    /// commit order within a row; a commit may recur in another row), each only its states in
    /// the range (`blockSlices`). Unnested, a row a state was most of a diff's key reads; an
    /// array goes out as one value (`PostgresArray.integers` reads it back).
    static func keySlices(_ keys: SQL, environment: SQL, from low: SQL, through high: SQL) -> SQL {
        """
        (SELECT w.id AS key_id, b.commit_ids[p.first:p.last] AS commit_ids, b.checked[p.first:p.last] AS checked,
                b.leaked[p.first:p.last] AS leaked, b.late[p.first:p.last] AS late, b.errors[p.first:p.last] AS errors
         FROM \(blockSlices(keys, environment: environment, from: low, through: high))
         WHERE p.last >= p.first
         UNION ALL
         SELECT n.key_id, array_agg(n.commit_id ORDER BY n.commit_id), array_agg(n.checked ORDER BY n.commit_id),
                array_agg(n.leaked ORDER BY n.commit_id), array_agg(n.late ORDER BY n.commit_id),
                array_agg(n.errors ORDER BY n.commit_id)
         FROM (\(keys)) AS w(id)
              JOIN unsettled_key_states n ON n.key_id = w.id AND n.environment_id = \(environment)
                                          AND n.commit_id BETWEEN \(low) AND \(high)
         GROUP BY n.key_id)
        """
    }

    /// Each key `w.id` of `keys` joined to the blocks `b` of its group in `environment` that reach
    /// commits `low` through `high` and hold states of it there, with the bounds `p.first` and
    /// `p.last` of its slice's states in the range: the FROM of `keyStates` and `keySlices`. The
    /// narrow blocks by a range of their last commit bounded on both sides (`last_commit_id >=
    /// low` alone reads every block of the group up to the newest), the wide ones on their own
    /// index.
    ///
    /// A slice reaching past the range is cut down to it by its commit ids, which are in order
    /// (`width_bucket` finds the ends by bisection): a block spans a settling batch's few dozen
    /// commits, and a read of a few of them (a suspect head's keys looked for at the base's
    /// nearest commits) would send out several times the states it uses, as text. The bounds are worked out once a slice (`OFFSET 0`: inlined, each use
    /// of them sliced the block's array again).
    private static func blockSlices(_ keys: SQL, environment: SQL, from low: SQL, through high: SQL) -> SQL {
        """
        (\(keys)) AS w(id)
                    CROSS JOIN LATERAL (
                        SELECT n.first_commit_id, n.last_commit_id, n.key_starts, n.commit_ids, n.checked, n.leaked, n.late,
                               n.errors, n.environment_id
                        FROM key_state_blocks n
                        WHERE n.key_group = w.id / \(raw: group) AND n.environment_id = \(environment)
                          AND n.last_commit_id BETWEEN \(low) AND CAST(\(high) AS BIGINT) + \(raw: narrowSpan)
                          AND n.first_commit_id <= \(high) AND \(raw: holdsKey("n", "w.id"))
                        UNION ALL
                        SELECT o.first_commit_id, o.last_commit_id, o.key_starts, o.commit_ids, o.checked, o.leaked, o.late,
                               o.errors, o.environment_id
                        FROM key_state_blocks o
                        WHERE o.key_group = w.id / \(raw: group) AND o.environment_id = \(environment)
                          AND o.last_commit_id > CAST(\(high) AS BIGINT) + \(raw: narrowSpan)
                          AND o.last_commit_id - o.first_commit_id > \(raw: narrowSpan)
                          AND o.first_commit_id <= \(high) AND \(raw: holdsKey("o", "w.id"))) AS b
                    CROSS JOIN LATERAL (SELECT b.key_starts[w.id % \(raw: group) + 1] AS first,
                                               b.key_starts[w.id % \(raw: group) + 2] - 1 AS last) AS whole
                    CROSS JOIN LATERAL (
                        SELECT CASE WHEN b.first_commit_id >= \(low) THEN whole.first
                                    ELSE whole.first + width_bucket(CAST(\(low) AS BIGINT) - 1, b.commit_ids[whole.first:whole.last])
                               END AS first,
                               CASE WHEN b.last_commit_id <= \(high) THEN whole.last
                                    ELSE whole.first - 1 + width_bucket(CAST(\(high) AS BIGINT), b.commit_ids[whole.first:whole.last])
                               END AS last
                        OFFSET 0) AS p
        """
    }

    /// That block `block` holds states of key `key` (its slice is not empty): tested on the row's
    /// small `key_starts`, before any array is decompressed — a key checked now and then has no
    /// states in most of its group's blocks (a scenario's whole history at 10M checks: 388
    /// blocks of its group read, 207 of them its own).
    static func holdsKey(_ block: String, _ key: String) -> String {
        "\(block).key_starts[\(key) % \(keyGroup) + 2] > \(block).key_starts[\(key) % \(keyGroup) + 1]"
    }

    /// The newest commit below `below` at which key `key` may have a state in `environment` (SQL
    /// yielding their ids): the last commit of its newest block there, or its newest state not
    /// settled yet; NULL when it has none. An upper bound that a read of the key's newest states
    /// starts from, instead of the project's newest commit.
    static func newestCommit(ofKey key: String, environment: SQL, below: SQL) -> SQL {
        """
        (SELECT max(newest) FROM (
            SELECT max(b.last_commit_id) AS newest FROM key_state_blocks b
            WHERE b.key_group = \(raw: key) / \(raw: group) AND b.environment_id = \(environment) AND b.first_commit_id < \(below)
              AND \(raw: holdsKey("b", key))
            UNION ALL
            SELECT max(n.commit_id) FROM unsettled_key_states n
            WHERE n.key_id = \(raw: key) AND n.environment_id = \(environment) AND n.commit_id < \(below)) AS newest)
        """
    }
}
