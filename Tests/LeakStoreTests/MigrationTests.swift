import Foundation
@testable import LeakStore
import Testing

@Suite("Migrations")
struct MigrationTests {
    @Test func aFreshDatabaseGetsEveryMigrationWithItsBookkeepingRow() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        #expect(try store.schemaVersion() == Migration.latestVersion)
        let (rows, tables) = try store.read { db in
            var rows: [String] = []
            try db.query("SELECT version, name FROM schema_migrations ORDER BY version") {
                rows.append("\($0.int(at: 0)) \($0.string(at: 1) ?? "")")
            }
            var tables: [String] = []
            try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                tables.append($0.string(at: 0) ?? "")
            }
            return (rows, tables)
        }
        #expect(rows == Migration.all.map { "\($0.version) \($0.name)" })
        #expect(tables == ["check_sites", "checks", "commit_parents", "commits", "compaction_progress", "environments",
                           "key_state_blocks", "leak_keys", "projects", "runs", "scenarios", "schema_migrations", "state_blobs",
                           "suppressions", "tokens", "types"])
    }

    /// Each engine's folder: SQLite's `Migrations/`, PostgreSQL's `Migrations/postgres/`.
    @Test(arguments: [("", Migration.all), ("postgres", Migration.postgres)])
    func everyFileInMigrationsIsCompiledInInOrder(_ subfolder: String, _ migrations: [Migration]) throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Migrations").appendingPathComponent(subfolder).standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files == migrations.map(\.fileName))
        for migration in migrations {
            let text = try String(contentsOf: folder.appendingPathComponent(migration.fileName), encoding: .utf8)
            let compiled = migration.sql + (migration.conversion == nil ? "" : Migration.conversionMarker + migration.finishingSQL)
            #expect(text == compiled, "\(subfolder)/\(migration.fileName) differs from the copy compiled in: rebuild")
        }
        #expect(migrations.map(\.version) == Array(1...migrations.count))
    }

    /// Migration 3 rebuilt `checks` to drop an IN list from its CHECK; the rule itself stands
    /// (migration 6 kept it).
    /// The partial indexes of the blocks wider than `StateBlobs.narrowSpan` spell its number, which
    /// the reads use to pick them: on each engine, the index is one a read can use only if they agree.
    @Test func theWideBlocksIndexesSpellNarrowSpan() throws {
        let predicate = "last_commit_id - first_commit_id > \(StateBlobs.narrowSpan)"
        for migration in [Migration.all.first { $0.version == 15 }, Migration.postgres.first { $0.version == 13 }] {
            let sql = try #require(migration?.sql)
            #expect(sql.contains("WHERE \(predicate)"), "\(migration?.name ?? "")")
        }
    }

    @Test func checksStillRefuseAnUnknownOutcome() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        // Expected below: a write body runs on the store's writer thread, outside the test's.
        let refusal = try store.write { writer -> (any Error)? in
            try writer.connection.execute("""
                INSERT INTO projects VALUES (1, 'p', 't');
                INSERT INTO commits VALUES (1, 1, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'main', 't');
                INSERT INTO runs VALUES (1, 1, 'k', 'h', 1, 'main', 'env', 's', 'r', NULL, NULL, 2, 1, 0, 0, 0);
                INSERT INTO types VALUES (1, 'T');
                INSERT INTO scenarios VALUES (1, 'S');
                INSERT INTO check_sites VALUES (1, 'f', 1, 'none');
                """)
            for outcome in ["deallocated", "leaked", "lateRelease", "error"] {
                try writer.connection.run("""
                    INSERT INTO checks (run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, site_id, checked_at)
                    VALUES (1, 1, 1, ?, 1, 2000, 1, 't')
                    """, [.text(outcome)])
            }
            do {
                try writer.connection.run("""
                    INSERT INTO checks (run_id, scenario_id, type_id, outcome, waited_ms, timeout_ms, site_id, checked_at)
                    VALUES (1, 1, 1, 'gone', 1, 2000, 1, 't')
                    """)
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal is SQLiteError)
    }
}
