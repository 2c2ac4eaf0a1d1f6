/// A connection's key states (`KeyTally` per key, environment and commit), read the same way
/// whatever packs them: SQLite's blobs and blocks (`Engine/SQLite/SQLiteKeyStates`), PostgreSQL's
/// arrays (`Engine/Postgres/PostgresKeyStates`). Queries ask it, and never which engine answers.
protocol KeyStateStore {
    /// Appends a run's states at `commitID` in `environmentID` (each key once), packed as the
    /// engine packs them. `settledAtOnce`: the caller settles every state before its transaction
    /// ends (an upgrade's batch, a copy), so nothing need be kept by key meanwhile.
    func append(_ states: [(keyID: Int64, state: KeyTally)], commitID: Int64, environmentID: Int64, settledAtOnce: Bool) throws

    /// Adds commit `from`'s states to commit `into`, after every state there is, in their order: a
    /// pending upload published onto a commit with runs. They settle later, with those after them.
    func copy(of from: Int64, into: Int64) throws

    /// Settles the oldest published states not settled yet, at least one stored row and about
    /// `maxStates` states' and `maxKeys` keys' worth, into each key's blocks. Returns how many
    /// rows and states it settled, and whether it stopped at a limit (more may wait).
    func settle(maxStates: Int, maxKeys: Int) throws -> (rows: Int, states: Int, full: Bool)

    /// Whether uploads leave settling to the background rounds (`PostgresStatistics`) rather
    /// than settle inside their own transaction.
    var settlesInBackground: Bool { get }

    /// The newest commits below `below`, newest first and at most `limit`, at which a key of the
    /// scenario has a state in `environment` that counts (a usable, published run of project
    /// `projectID`): each key's newest, then the newest of them all — every one of those is among
    /// its key's newest `limit`. A key's range is the only table scanned: the project is its
    /// usable run's (a run's project is its commit's), looked up a state at a time (a join with
    /// `commits` was walked from the newest commit down to the key's newest state, which for a key
    /// not checked lately grew with the history).
    func newestCommits(ofScenario scenarioID: Int64, environment: String, projectID: Int64, below: Int64, limit: Int) throws
        -> [Int64]

    /// The keys with a row-less passing check at `commitID` in `environmentID` (a
    /// `slowest_pass_us`), from the commit's states there as stored; nil where the store has no
    /// read of them cheaper than `leak_states` by key (the caller asks that).
    func passedKeys(commitID: Int64, environmentID: Int64) throws -> Set<Int64>?

    /// The usable runs' states at `commitIDs` in `environment` as stored, one entry a stored row
    /// (a run's, several at one commit, not merged), in commit order: key ids and their tallies.
    /// Nil where a commit is read faster through `leak_states` (SQLite's virtual table keeps a
    /// commit decoded per connection), or one row holds more than `limit` states (a big run's
    /// arrays are not sent).
    func storedStates(at commitIDs: [Int64], environment: String, atMost limit: Int?) throws
        -> [(commitID: Int64, states: StoredStates)]?

    /// The states of the keys of one batch (`SQLConnection.idBatches` of `StoreTuning.keysPerStatement`)
    /// in `environment` at commits `low` through `high`, each handed to `state` (key id, commit
    /// id, tally) as the engine reads it: the keys in any order, and a key's commits in any order,
    /// one commit's state possibly in several parts (runs as stored) for the caller to merge.
    /// SQLite's table hands a key's states over merged, in commit order, a key at a time.
    func visitStates(ofKeys batch: [SQLValue], environment: String, from low: Int64, through high: Int64,
                     _ state: (_ keyID: Int64, _ commitID: Int64, _ tally: KeyTally) -> Void) throws

    /// `leak_states` as a read of keys' histories names it in SQL: the relation itself where it
    /// answers by key (SQLite's virtual table); where it is a view by commit (PostgreSQL), the
    /// states of `keys` (SQL yielding their ids) in `environment` (SQL yielding its id) at commits
    /// `low` through `high` from the keys' blocks. The statement keeps its own conditions on it:
    /// the relation holds no other rows.
    func relation(ofKeys keys: SQL, environment: SQL, from low: SQL, through high: SQL) -> SQL

    /// The SQL condition on `leak_states` named `alias` that keeps the states `filter` holds for.
    func condition(_ filter: KeyTally.Filter, on alias: String) -> String

    /// Whether some of a pending commit's stored states remain: a row when they do.
    func pendingLeft(commitID: Int64) -> SQL

    /// The removal of up to `rows` of the stored rows holding a pending commit's states, a slice
    /// of its removal.
    func pendingDelete(commitID: Int64, rows: Int64) -> SQL

    /// Each of `keyIDs`' states in `environment` at the commits `low` through `high`: a key's
    /// history over a commit range, one `KeyTally` a commit (the runs stored there merged), in
    /// commit order; a key without a state in the range is absent. Its tally is what a gate
    /// counts per commit: the runs that checked the key (`checked - errors`) and those that leaked
    /// it (`leaked`).
    ///
    /// ```swift
    /// let histories = try db.keyStates.history(of: [12, 40], environment: "linux", from: 1_024, through: 409_600)
    /// for (commitID, tally) in histories[12] ?? [] where tally.isLeaking { … }
    /// ```
    func history(of keyIDs: Set<Int64>, environment: String, from low: Int64, through high: Int64) throws
        -> [Int64: [(commitID: Int64, tally: KeyTally)]]
}

extension KeyStateStore {
    /// The statement `newestCommits` runs for one key in `environment` of project `projectID`:
    /// its states at commits `low` through `below - 1` that count, newest first, at most `limit`,
    /// in a column `commit_id`. With `orderedFirst`, the window's states are ordered before each
    /// is looked up among the runs, so that the lookups stop at the `limit`th.
    func newestCommitsSQL(ofKey keyID: Int64, environment: String, projectID: Int64, below: Int64, low: Int64, limit: Int,
                          orderedFirst: Bool) -> SQL {
        let environmentID: SQL = "(SELECT id FROM environments WHERE name = \(environment))"
        let states: SQL = """
            SELECT ls.commit_id
            FROM \(relation(ofKeys: "SELECT CAST(\(keyID) AS BIGINT)", environment: environmentID,
                             from: "CAST(\(low) AS BIGINT)", through: "CAST(\(below) AS BIGINT) - 1")) ls
            WHERE ls.key_id = \(keyID) AND ls.environment_id = \(environmentID)
              AND ls.commit_id < \(below) AND ls.commit_id >= \(low)
            """
        let counts: SQL = """
            EXISTS (SELECT 1 FROM runs r WHERE r.commit_id = ls.commit_id AND r.environment = \(environment) AND r.suspect = 0
                    AND r.project_id = \(projectID) AND \(raw: PendingUpload.isPublished("r")))
            """
        return orderedFirst ? """
            SELECT ls.commit_id FROM (\(states) ORDER BY ls.commit_id DESC OFFSET 0) ls
            WHERE \(counts) ORDER BY ls.commit_id DESC LIMIT \(limit)
            """ : "\(states) AND \(counts) ORDER BY ls.commit_id DESC LIMIT \(limit)"
    }

    /// `states` in commit order, those of one commit merged: what `history` promises, from rows
    /// an engine hands over in whatever order it stored them.
    static func inCommitOrder(_ states: [(commitID: Int64, tally: KeyTally)]) -> [(commitID: Int64, tally: KeyTally)] {
        KeyTally.mergedInOrder(states, by: { $0.commitID }) { $0.tally.merge($1.tally) }
    }
}

extension SQLConnection {
    /// The key states this connection's engine packs, read through the one protocol.
    var keyStates: any KeyStateStore {
        switch self {
        case let sqlite as SQLiteConnection: SQLiteKeyStates(db: sqlite)
        case let postgres as PostgresConnection: PostgresKeyStates(db: postgres)
        default: preconditionFailure("no key-state store for \(type(of: self))")
        }
    }
}
