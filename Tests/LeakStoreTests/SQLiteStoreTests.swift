import Foundation
@testable import LeakStore
import Testing

/// What only the SQLite engine has: its file settings and its error detail.
@Suite("SQLite engine")
struct SQLiteStoreTests {
    @Test func theDatabaseIsInWALWithForeignKeysOn() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path, options: StoreOptions(synchronous: .full))
        let settings = try store.write { writer in
            [try writer.connection.scalarText("PRAGMA journal_mode"),
             try writer.connection.scalarInt("PRAGMA foreign_keys").map(String.init),
             try writer.connection.scalarInt("PRAGMA synchronous").map(String.init)]
        }
        #expect(settings == ["wal", "1", "2"])
    }

    @Test func aFailingStatementNamesTheCodeTheMessageAndTheSQL() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        let error = #expect(throws: SQLiteError.self) {
            try store.write { try $0.connection.run("INSERT INTO projects (name, created_at) VALUES (NULL, ?)", [.text("x")]) }
        }
        #expect(error?.code == 1299) // SQLITE_CONSTRAINT_NOTNULL
        #expect(error?.message.contains("NOT NULL constraint failed: projects.name") == true)
        #expect(error?.sql == "INSERT INTO projects (name, created_at) VALUES (NULL, ?)")
    }
}
