import Foundation
import LeakReport

/// Brings a database up to `Migration.latestVersion`, one migration per IMMEDIATE transaction,
/// and refuses a database that a newer build has already migrated past what this build knows.
struct Migrator {
    let migrations: [Migration]

    /// The versions applied, in order (empty when the database was already up to date).
    @discardableResult
    func migrate(_ db: SQLiteConnection) throws -> [Int] {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version     INTEGER PRIMARY KEY,
                name        TEXT NOT NULL,
                applied_at  TEXT NOT NULL
            )
            """)
        var applied: [Int] = []
        for migration in migrations {
            let didApply = try db.transaction(.immediate) { () throws -> Bool in
                // Read inside the transaction: another process may have migrated meanwhile.
                let current = try currentVersion(db)
                try refuseIfNewer(current, path: db.path)
                guard migration.version > current else { return false }
                try db.execute(migration.sql)
                try db.run(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    [.integer(Int64(migration.version)), .text(migration.name),
                     .text(ReportTimestamp.string(from: Date()))])
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        try refuseIfNewer(try currentVersion(db), path: db.path)
        return applied
    }

    func currentVersion(_ db: SQLiteConnection) throws -> Int {
        Int(try db.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0)
    }

    private func refuseIfNewer(_ version: Int, path: String) throws {
        let known = migrations.last?.version ?? 0
        if version > known {
            throw LeakStoreError.schemaTooNew(path: path, found: version, supported: known)
        }
    }
}
