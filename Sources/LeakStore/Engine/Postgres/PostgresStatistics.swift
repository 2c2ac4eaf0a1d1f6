import Foundation
import Synchronization

/// Keeps PostgreSQL's planner statistics of the store's tables as current as their data.
///
/// The store's statements run generic plans (`PostgresConnection.configureSession`), made once a
/// connection and made again when a table's statistics change. Made on tables that had grown
/// since their last ANALYZE — a new database's first uploads, a 100,000-check run — they were
/// plans for tables of a few rows: a key's states over a range of commits read through the
/// primary key's range and hash-joined, far slower than on analyzed tables, until
/// autovacuum got to the table a minute or more later. So every `StoreTuning.upkeepEveryChecks` checks a server writes,
/// it analyzes, in the background and one at a time, each of its schema's tables changed by more
/// than `StoreTuning.analyzeChangedShare` of its rows (and `StoreTuning.analyzeChangedRows`) since its last ANALYZE. PostgreSQL counts
/// every server's changes (`pg_stat_user_tables`), so servers sharing a database share the rule;
/// the new statistics make every connection plan its statements again.
///
/// The same rounds vacuum `unsettled_key_states` once more than `StoreTuning.vacuumDeadRows` of its rows are dead:
/// every state passes through it (a row until its batch settles, `StateArrays`), and left to
/// autovacuum, which comes by a minute or more apart, it grew to many times its live rows;
/// vacuumed this often, its pages are used again.
///
/// The same rounds settle the packed key states (`settleWaitingStates`), which uploads leave to
/// them on PostgreSQL (`StateBlobs.settlesInBackground`): first, then the vacuum, then the
/// ANALYZEs (settling is what the states written meanwhile wait for).
///
/// A failed round (a timeout, the database gone) is left to the next one, and to autovacuum.
final class PostgresStatistics: Sendable {
    private let pool: PostgresPool
    private let written = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    /// A round was due while one ran.
    private let again = Atomic<Bool>(false)
    /// Rounds finished, for tests.
    let rounds = Atomic<Int>(0)

    init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Counts `checks` written; starts a round in the background when they cross a multiple of
    /// `StoreTuning.upkeepEveryChecks`, or has the running round go round once more (a big run published while
    /// a round analyzed would otherwise wait for the next uploads to be settled).
    func wrote(_ checks: Int) {
        guard checks > 0 else { return }
        let after = written.add(checks, ordering: .relaxed).newValue
        guard (after - checks) / StoreTuning.upkeepEveryChecks != after / StoreTuning.upkeepEveryChecks else { return }
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            again.store(true, ordering: .releasing)
            return
        }
        Thread.detachNewThread { [self] in
            repeat {
                again.store(false, ordering: .relaxed)
                // Settling first (see the type's comment): what waits meanwhile is what
                // `unsettled_key_states` holds at the most.
                let settled = (try? settleWaitingStates()) ?? 0
                try? vacuumSettledStates(settledNow: settled)
                try? analyzeChangedTables()
                rounds.add(1, ordering: .relaxed)
                running.store(false, ordering: .releasing)
            } while again.load(ordering: .acquiring)
                && running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        }
    }

    /// Analyzes the schema's tables that changed enough since their last ANALYZE.
    func analyzeChangedTables() throws {
        try pool.withConnection { pooled in
            let db = pooled.connection
            var tables: [String] = []
            try db.query("""
                SELECT c.relname FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_stat_user_tables s ON s.relid = c.oid
                WHERE n.nspname = current_schema() AND c.relkind = 'r'
                  AND s.n_mod_since_analyze > greatest(?, ? * greatest(c.reltuples, 0))
                """, [.integer(Int64(StoreTuning.analyzeChangedRows)), .real(StoreTuning.analyzeChangedShare)]) { tables.append($0.string(at: 0) ?? "") }
            let begin = "BEGIN; SET LOCAL statement_timeout = \(Int(StoreTuning.upkeepTimeout / .milliseconds(1)))"
            for table in tables where !table.isEmpty {
                try PostgresEngine.transaction(db, begin: begin) {
                    try db.execute("ANALYZE \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\"")
                }
            }
        }
    }

    /// Settles the published key states not settled yet (`StateBlobs.settle`), a batch a
    /// transaction, while a batch's worth (`StoreTuning.settleStates`) or more waits: what an
    /// upload on SQLite does in its own transaction once that many have come (a big run's, a few
    /// thousand keys a batch). Servers sharing the database settle the same rows: one waits for
    /// another's batch and finds its rows settled. Returns how many states it settled.
    @discardableResult
    func settleWaitingStates() throws -> Int {
        try pool.withConnection { pooled in
            let db = pooled.connection
            let begin = "BEGIN; SET LOCAL statement_timeout = \(Int(StoreTuning.upkeepTimeout / .milliseconds(1)))"
            var states = 0
            while try Self.waitingStates(db) >= StoreTuning.settleStates {
                let settled = try PostgresEngine.transaction(db, begin: begin) { try StateBlobs.settle(db: db) }
                guard settled.blobs > 0 else { break }
                states += settled.states
            }
            return states
        }
    }

    /// How many published key states wait to be settled (`StateArrays.waitingRows`).
    static func waitingStates(_ db: PostgresConnection) throws -> Int {
        Int(try db.scalarInt("SELECT coalesce(sum(a.state_count), 0) FROM \(StateArrays.waitingRows)") ?? 0)
    }

    /// Vacuums `unsettled_key_states` when more than `StoreTuning.vacuumDeadRows` of its rows are dead (settled):
    /// `settledNow` by this round (its deletes may not be in `pg_stat_user_tables` yet: a backend
    /// reports them a second or more later), or as PostgreSQL counts them (another server's).
    func vacuumSettledStates(settledNow: Int = 0) throws {
        try pool.withConnection { pooled in
            let db = pooled.connection
            guard try settledNow > StoreTuning.vacuumDeadRows || db.scalarInt("""
                SELECT n_dead_tup FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = 'unsettled_key_states'
                """) ?? 0 > Int64(StoreTuning.vacuumDeadRows) else { return }
            // VACUUM runs outside a transaction: the timeout is the session's for the statement.
            try db.execute("SET statement_timeout = \(Int(StoreTuning.upkeepTimeout / .milliseconds(1)))")
            defer { try? db.execute("RESET statement_timeout") }
            try db.execute("VACUUM unsettled_key_states")
        }
    }
}
