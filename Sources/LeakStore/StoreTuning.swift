/// Every number the store chose for speed or memory, with the reason beside it. None of them
/// changes an answer: each bounds how much one statement, transaction, blob or cache holds.
/// How each was found, with the measurements, is in BENCHMARKS.md ("The store's tuning").
///
/// Numbers that are part of the stored format or of the answers live with what they define
/// (`CommitOrder.spacing`, `StateArrays.keyGroup`, `StateBlobs.narrowSpan`, the diff's windows in
/// `LeakStore+Diff`, `RunTally.suspectMinimumChecks`); settings an operator may change are in
/// `StoreOptions`.
package enum StoreTuning {
    // MARK: Statements: how many items one statement asks about

    /// Keys one statement reads (the writer's read-back of interned keys, a read's key ids): a
    /// power of two, so that the read-back's statements are a few texts (1, 2, 4, … keys), and
    /// a diff's many keys cost a few statements — round trips on PostgreSQL — not a few per key.
    static let keysPerStatement = 128

    /// Commits one statement of `ProjectHistory.readCommits` asks about (by sha): a diff names
    /// a handful (head, base, merge-base, the base branch's upload after it).
    static let commitsPerStatement = 4

    /// Commit ids one statement asks about (their shas, runs or fingerprints): a walk's or a
    /// trend's commits in a few statements, each the same text (the last batch padded).
    static let commitIDsPerStatement = 64

    /// How many commits a first-parent walk's statements read (`ProjectHistory.firstParentLine`):
    /// the first `first`, each next one twice as many (a walk often ends early, where its window
    /// fills, or joins commits an earlier walk read). Where a statement is a round trip
    /// (PostgreSQL) the first reads more (a 400-commit window: 3 round trips, not 6), and with
    /// `firstWalkReadsAll` the snapshot's first walk (a diff's base line), which has nothing to
    /// join, reads all it may need at once. Each connection says which it is (`SQLConnection.walkReads`).
    package struct WalkReads: Sendable {
        let first: Int
        let firstWalkReadsAll: Bool
    }

    /// A statement is a call into this process (SQLite).
    static let walkReadsInProcess = WalkReads(first: 8, firstWalkReadsAll: false)

    /// A statement is a round trip to a database server (PostgreSQL).
    static let walkReadsRoundTrips = WalkReads(first: 64, firstWalkReadsAll: true)

    /// Candidates one statement of `resolveBase` asks about: the nearest usable candidate is
    /// usually among the first, and a statement per candidate is a round trip each on PostgreSQL.
    static let candidatesPerStatement = 32

    /// Rows bound to one multi-row insert on SQLite: a statement's own work (its journal, its
    /// cursors, its halt) is spread over this many rows instead of paid for each.
    static let insertRowsPerStatement = 32

    /// Keys a commit of a read of keys' states must be asked about for the read to take the
    /// commits' rows of `state_arrays` (PostgreSQL) instead of the keys' slices of their blocks:
    /// a commit's row holds a few hundred states, a key's slice a few dozen but a lookup each.
    static let keysForCommitRead = 4

    /// The most states a row of `state_arrays` may hold for the read by commit to take it: a
    /// bigger row (a big run's) is read by key instead.
    static let commitReadStates = 5_000

    /// The commit ids a scenario history's first window reaches below a key's newest state, per
    /// commit wanted (PostgreSQL, `PostgresKeyStates.newestCommits`): four uploads' worth each,
    /// so that most keys find their commits in one read, and a key checked rarely in a few.
    static let newestCommitsSpan: Int64 = 4_096

    /// How many commits of a line `ProjectHistory.nearestCheckedStates` reads first for the keys
    /// it looks for, and by how much each next read grows: most keys were checked at the line's
    /// first commits, and the few left are read over longer stretches in few statements.
    static let nearestCheckedFirstCommits = 8
    static let nearestCheckedGrowth = 4

    // MARK: Packing and settling key states

    /// About how many states one settling moves: a few dozen CI runs' worth, so that a key gets
    /// a block for a few dozen commits, not one a commit.
    static let settleStates = 32_000

    /// How many keys one settling writes a block for, at most (whole blobs: at least one): a
    /// block costs a b-tree descent, and on SQLite a settling runs inside some upload's
    /// transaction, so a big run's states (keys mostly its own) settle over several.
    static let settleKeys = 4_096

    /// The most states one blob (SQLite) or row of arrays (PostgreSQL) holds: a big run's states
    /// are several, so that a settling stays within `settleKeys` and `settleStates`.
    static let blobStates = 4_096

    // MARK: Writing on SQLite

    /// The most writes one group-commit transaction holds: enough to absorb a full house of small
    /// uploads (eight clients at two workers each), few enough that no caller waits behind many
    /// big ones.
    static let writesPerTransaction = 16

    /// The checks' worth of work one group-commit transaction holds: uploads of neighbouring
    /// commits change the same pages of their keys' states, and sharing a transaction writes
    /// those pages once for all of them.
    static let checksPerTransaction = 8_000

    /// A write costlier than this runs alone (a slice of a big run, a bigger upload): in a small
    /// upload's transaction it would hold the small one back for its whole length.
    static let sharedWriteLimit = 1_000

    /// A write of at most this many checks' worth (a CI shard's upload, a token, a suppression)
    /// queued behind costlier ones goes first, in a transaction of the small writes alone, so it
    /// never waits for a full transaction of whole suites.
    static let smallWriteLimit = 100

    /// A detached write waits for room while the writes queued would cost more than this with
    /// it: without a bound a flood of uploads would each hold a parsed run in the queue. Twice
    /// `checksPerTransaction`: CI-shaped uploads queue at most one transaction's worth.
    static let detachedCostLimit = 2 * checksPerTransaction

    /// The writer's page cache, in KiB (SQLite's default is 2 MiB): the newest pages of the key
    /// states of about 2,000 keys, which CI's uploads change commit after commit. Filled only as
    /// used.
    static let writerCacheKiB = 8 * 1_024

    /// A background checkpoint is asked for once the write-ahead log holds this many pages more
    /// than when the last one was asked for (SQLite's automatic default).
    static let pagesPerCheckpoint: Int32 = 1_000

    /// The most pages the writer copies itself before a transaction so that the log can start
    /// over (what SQLite's automatic checkpoint copies in a commit): more is left to the
    /// background, so that no upload waits behind a big copy.
    static let catchUpPages: Int32 = 1_000

    // MARK: Upkeep on PostgreSQL

    /// Checks written between two rounds of upkeep (settling, vacuum, ANALYZE).
    static let upkeepEveryChecks = 2_000

    /// A table is analyzed once more of it than this share changed since its last ANALYZE…
    static let analyzeChangedShare = 0.2
    /// …and at least this many rows: generic plans made on tables that had grown since their
    /// statistics were taken read whole ranges of the grown table.
    static let analyzeChangedRows = 1_000

    /// How long one ANALYZE or VACUUM of the upkeep may take (its statement timeout).
    static let upkeepTimeout: Duration = .seconds(60)

    /// Dead rows past which `unsettled_key_states` is vacuumed: about a settling's worth, so that
    /// its pages are used again rather than left to autovacuum, which comes by far less often.
    static let vacuumDeadRows = 20_000

    /// How often a write transaction runs again after losing a race between servers (a unique
    /// key, a serialization failure, a deadlock) before the client is told to retry.
    static let raceAttempts = 5

    // MARK: What connections keep

    /// How many rows of decoded commits SQLite's `LeakStatesTable` keeps a connection before it
    /// starts again; a commit bigger than that (a big run's) is read for its telling states, or
    /// kept as the connection's one big commit.
    static let commitRowsKept = 8_192

    /// How many big commits' telling states `LeakStatesTable` keeps a connection.
    static let tellingCommitsKept = 16

    /// How many connections of the process may hold a big commit decoded at once (a diff reads
    /// one in several statements); the others decode it for each statement.
    static let bigCommitHolders = 2

    /// How many unsettled states a connection keeps decoded, at most: a settling's worth and some.
    static let unsettledRowsKept = 2 * settleStates

    /// How many facts a PostgreSQL connection's `CommitGraph` keeps: past it, all are forgotten
    /// at the connection's next read (`ConnectionMemory.beginRead(session:)`) and learned again.
    static let commitGraphFacts = 100_000

    /// How many keys' names a PostgreSQL connection's or SQLite reader's `KeyNameMemory` keeps (all forgotten at the
    /// next read past it): a project has a few thousand keys, a big run as many as it checks.
    static let keyNamesKept = 50_000

    /// How many tokens the store's `TokenMemory` keeps checked (for `StoreOptions.tokenMemory`):
    /// a server's clients use a handful of tokens; past it, all are forgotten.
    static let tokensKept = 1_024

    // MARK: Hashing

    /// The bytes a run's content hash gathers before it feeds them to SHA-256
    /// (`RunRecord.contentHash`): a few calls a big run, the buffer small.
    static let contentHashChunkBytes = 1 << 16

    // MARK: Moving data

    /// Roughly how many old rows a batch of an upgrade in place copies (whole runs, or whole
    /// commits), each batch a transaction committed with its progress marker.
    static let conversionBatchRows = 50_000

    /// Rows a table's copy (`leakhistory-server migrate`) reads before it inserts them.
    static let copyBatchRows = 5_000
}
