import Foundation
import LeakReport

/// Brings a database up to the newest of `migrations`, one migration per transaction together
/// with its bookkeeping row, and refuses a database that a newer build has already migrated
/// past what this build knows. The engine says how a transaction is opened (SQLite: IMMEDIATE;
/// PostgreSQL: under an advisory lock held by the caller, so that servers starting together
/// migrate once).
struct Migrator {
    let migrations: [Migration]
    /// The file or URL, for the refusal message.
    let location: String
    /// Told how a converting migration comes along, after each batch; it may throw to stop.
    var progress: UpgradeProgress.Observer?
    /// Roughly how many old rows (checks, key states) a conversion batch copies in one transaction.
    var batchRows = StoreTuning.conversionBatchRows

    /// The versions applied, in order (empty when the database was already up to date).
    @discardableResult
    func migrate(_ db: any SQLConnection, inTransaction: (() throws -> Bool) throws -> Bool) throws -> [Int] {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version     INTEGER PRIMARY KEY,
                name        TEXT NOT NULL,
                applied_at  TEXT NOT NULL
            )
            """)
        var applied: [Int] = []
        for migration in migrations {
            let didApply = try inTransaction { () throws -> Bool in
                // Read inside the transaction: another process may have migrated meanwhile.
                let current = try currentVersion(db)
                try refuseIfNewer(current)
                guard migration.version > current else { return false }
                try db.execute(migration.sql)
                try db.run(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    [.integer(Int64(migration.version)), .text(migration.name),
                     .text(ReportTimestamp.string(from: Date()))])
                return true
            }
            if didApply { applied.append(migration.version) }
            // A conversion that was stopped (killed, interrupted) continues here, before any later
            // migration, which may expect the converted layout.
            if let conversion = migration.conversion {
                try conversion.resume(db, migration: migration, batchRows: batchRows, progress: progress, inTransaction: inTransaction)
            }
        }
        try refuseIfNewer(try currentVersion(db))
        return applied
    }

    func currentVersion(_ db: any SQLConnection) throws -> Int {
        Int(try db.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0)
    }

    private func refuseIfNewer(_ version: Int) throws {
        let known = migrations.last?.version ?? 0
        if version > known {
            throw LeakStoreError.schemaTooNew(path: location, found: version, supported: known)
        }
    }
}
