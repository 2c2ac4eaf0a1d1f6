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

    /// Readers map the file (`readerMemoryMapBytes`) and read the same rows as without it.
    @Test func readersMapTheFileAsConfiguredAndReadTheSameRows() throws {
        let database = try TemporaryDatabase()
        let mapped = try LeakStore(path: database.path, options: StoreOptions(readerMemoryMapBytes: 64 << 20))
        _ = try mapped.createProject("app")
        #expect(try mapped.read { try $0.scalarInt("PRAGMA mmap_size") } == 64 << 20)
        let plain = try LeakStore(path: database.path, options: StoreOptions(readerMemoryMapBytes: 0))
        #expect(try plain.read { try $0.scalarInt("PRAGMA mmap_size") } == 0)
        #expect(try plain.projectNames() == mapped.projectNames())
        // The writer reads what it just wrote: it does not map.
        #expect(try mapped.write { try $0.connection.scalarInt("PRAGMA mmap_size") } == 0)
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

    /// The writer's commits never copy the log into the file themselves (that held the writer
    /// for tens of milliseconds after a big write): the checkpointer does it in the background,
    /// and what it copied is there after a reopen.
    @Test func theLogIsCopiedIntoTheFileInTheBackgroundNotByTheCommit() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        let checkpointer = try #require((store.engine as? SQLiteEngine)?.checkpointer)
        func fileBytes() -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: database.path)[.size]) as? NSNumber)?.int64Value ?? -1
        }
        // More than `pagesPerCheckpoint` pages of 4 KiB in one transaction.
        let rows = Int(SQLiteCheckpointer.pagesPerCheckpoint) * 3 / 2
        let before = fileBytes()
        let done = checkpointer.checkpointsCompleted
        try checkpointer.whilePaused {
            try store.write { writer in
                try writer.connection.run("CREATE TABLE filler (bytes BLOB NOT NULL)")
                for _ in 0..<rows { try writer.connection.run("INSERT INTO filler VALUES (randomblob(4000))") }
            }
            #expect(fileBytes() == before, "the commit copied the log into the file")
        }
        checkpointer.drain()
        #expect(checkpointer.checkpointsCompleted > done)
        #expect(fileBytes() > before + Int64(rows) * 4_000)
        try store.close()
        let reopened = try LeakStore(path: database.path)
        #expect(try reopened.read { try $0.scalarInt("SELECT count(*) FROM filler") } == Int64(rows))
    }

    /// Under a steady stream of small writes the log starts over instead of growing: the writer
    /// copies what was appended while the background checkpoint ran (it once grew to 390 MB in a
    /// minute of 10-check uploads, every frame written at a new offset, and every commit past the
    /// first 1,000 pages asked for another checkpoint).
    @Test func underASteadyStreamOfWritesTheLogStartsOverInsteadOfGrowing() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        func logBytes() -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: database.path + "-wal")[.size]) as? NSNumber)?.int64Value ?? 0
        }
        try store.write { try $0.connection.run("CREATE TABLE filler (bytes BLOB NOT NULL)") }
        // About two pages a transaction, 8,000 transactions: 16,000 frames (64 MiB) if the log
        // never started over.
        var largest: Int64 = 0
        for _ in 0..<8_000 {
            try store.write { try $0.connection.run("INSERT INTO filler VALUES (randomblob(3000))") }
            largest = max(largest, logBytes())
        }
        let bound = Int64(SQLiteCheckpointer.pagesPerCheckpoint) * 8 * 4_096
        #expect(largest <= bound, "the log grew to \(largest / 1_048_576) MiB under small writes")
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM filler") } == 8_000)
    }
}
