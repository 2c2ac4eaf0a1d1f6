import Foundation
import Synchronization

/// The engine for teams that run several servers: PostgreSQL through libpq. A pool of
/// connections serves reads (REPEATABLE READ READ ONLY transactions: one snapshot each) and
/// writes (READ COMMITTED transactions, run again after a lost race with another server).
/// Opening it applies the PostgreSQL migrations under an advisory lock, so servers starting
/// together migrate once.
final class PostgresEngine: StoreEngine {
    let url: String
    let location: String
    private let pool: PostgresPool
    /// Analyzes the tables that grew, as uploads write (`PostgresStatistics`).
    let statistics: PostgresStatistics
    /// Opens a read: one snapshot, and the query time budget as the transaction's statement timeout.
    private let beginRead: String

    /// The advisory lock key the migrations run under: "LH" "MIGR" in ASCII.
    static let migrationLock: Int64 = 0x4C48_4D49_4752

    /// - Throws: `LeakStoreError.unavailable` when PostgreSQL cannot be reached,
    ///   `.schemaTooNew` for a database migrated by a newer build.
    init(url: String, options: StoreOptions, progress: UpgradeProgress.Observer? = nil) throws {
        self.url = url
        location = Self.redacted(url)
        pool = PostgresPool(url: url, limit: max(2, options.readerCount + 2), internedLimit: options.internedLimit)
        statistics = PostgresStatistics(pool: pool)
        beginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            + (options.queryTimeBudget.map { "; SET LOCAL statement_timeout = \(max(1, Int($0 / .milliseconds(1))))" } ?? "")
        try Self.mapped { try pool.withConnection { pooled in
            let db = pooled.connection
            try db.execute("SELECT pg_advisory_lock(\(Self.migrationLock))")
            defer { try? db.execute("SELECT pg_advisory_unlock(\(Self.migrationLock))") }
            let migrator = Migrator(migrations: Migration.postgres, location: location, progress: progress,
                                    batchRows: options.upgradeBatchChecks)
            try migrator.migrate(db) { body in
                try Self.transaction(db, begin: "BEGIN", body)
            }
        } }
    }

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try Self.mapped {
            try pool.withConnection { pooled in
                pooled.connection.beginRead()
                return try Self.transaction(pooled.connection, begin: beginRead) {
                    try body(pooled.connection)
                }
            }
        }
    }

    func write<T>(cost: Int, _ body: (WriteSession) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                let result = try pool.withConnection { pooled in
                    try pooled.session.transaction { session in
                        try Self.transaction(pooled.connection, begin: "BEGIN") { try body(session) }
                    }
                }
                statistics.wrote(cost)
                return result
            } catch let error as PostgresError {
                guard error.isLostRace, attempt < StoreTuning.raceAttempts else { throw error.storeError ?? error }
                attempt += 1
                usleep(useconds_t(UInt32.random(in: 1_000...10_000) * UInt32(attempt)))
            }
        }
    }

    /// The bytes of the schema's tables, their indexes and TOAST (`pg_total_relation_size`):
    /// the database's other schemas and PostgreSQL's own write-ahead log are not ours.
    func sizeOnDisk() -> Int64? {
        try? read { db in
            try db.scalarInt("""
                SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm')
                """)
        }
    }

    func close() throws { pool.closeIdle() }

    func checkpoint() throws {}

    /// `BEGIN`, `body`, `COMMIT`; `ROLLBACK` when `body` throws. A connection that PostgreSQL
    /// dropped while it sat in the pool (a restart) fails at `BEGIN`: it is reset and the
    /// transaction begins on the new session.
    static func transaction<T>(_ db: PostgresConnection, begin: String, _ body: () throws -> T) throws -> T {
        do {
            try db.execute(begin)
        } catch let error as PostgresError where error.connectionLost {
            guard db.reset() else { throw error }
            try db.execute(begin)
        }
        do {
            let result = try body()
            try db.execute("COMMIT")
            return result
        } catch {
            if db.isConnected { try? db.execute("ROLLBACK") }
            throw error
        }
    }

    private static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw error.storeError ?? error
        }
    }

    /// The URL without its password, for messages and the start-up line.
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? url
    }
}

/// A pooled connection and the names interned through it.
final class PooledPostgresConnection: @unchecked Sendable {
    let connection: PostgresConnection
    let session: WriteSession

    init(_ connection: PostgresConnection, internedLimit: Int) {
        self.connection = connection
        session = WriteSession(connection, internedLimit: internedLimit)
    }
}

/// Connections opened on demand up to a limit and reused. A connection known to be broken is
/// reset before use; one that cannot be reset is dropped, and the caller hears `.unavailable`.
final class PostgresPool: Sendable {
    private let url: String
    private let idle = Mutex<[PooledPostgresConnection]>([])
    private let available: DispatchSemaphore
    /// What each connection's `WriteSession` keeps between transactions (`StoreOptions.internedLimit`).
    private let internedLimit: Int

    init(url: String, limit: Int, internedLimit: Int) {
        self.url = url
        available = DispatchSemaphore(value: limit)
        self.internedLimit = internedLimit
    }

    func withConnection<T>(_ body: (PooledPostgresConnection) throws -> T) throws -> T {
        available.wait()
        defer { available.signal() }
        let pooled = try checkOut()
        let result: T
        do {
            result = try body(pooled)
        } catch {
            // A connection lost mid-request is reset by the next user; keep it only if it still works.
            if pooled.connection.isConnected { checkIn(pooled) }
            throw error
        }
        checkIn(pooled)
        return result
    }

    func closeIdle() {
        idle.withLock { $0.removeAll() }
    }

    private func checkIn(_ pooled: PooledPostgresConnection) {
        idle.withLock { $0.append(pooled) }
    }

    private func checkOut() throws -> PooledPostgresConnection {
        while let pooled = idle.withLock({ $0.popLast() }) {
            if pooled.connection.isConnected || pooled.connection.reset() { return pooled }
        }
        return PooledPostgresConnection(try PostgresConnection(url: url), internedLimit: internedLimit)
    }
}
