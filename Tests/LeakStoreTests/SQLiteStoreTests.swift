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

    /// Rows go 32 a statement, the rest in powers of two: every row is inserted in the order
    /// given, a row upserts against one before it in the same statement, and an insert that
    /// returns the rows it adds returns those of a statement that added all its rows, with
    /// their ids, and none of one that did not.
    @Test func multiRowInsertsKeepOrderUpsertsAndAddedRows() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        let (stored, added) = try store.write { writer in
            let db = writer.connection
            try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL UNIQUE, n INTEGER, s TEXT)")
            let upsert = RowInsert(into: "t (k, n, s)", columnCount: 3,
                                   suffix: "ON CONFLICT (k) DO UPDATE SET n = t.n + excluded.n, s = excluded.s")
            // 75 rows: 32 + 32 + 8 + 2 + 1; key 3 comes again in the second statement and the last one.
            try db.insert(upsert, rows: (0..<75).map { index in
                [.integer(index == 40 || index == 74 ? 3 : Int64(index)), .integer(1), index.isMultiple(of: 2) ? .text("\(index)") : .null]
            })
            let distinct = RowInsert(into: "t (k, n, s)", columnCount: 3, suffix: "ON CONFLICT (k) DO NOTHING",
                                     returnsAddedRows: true)
            var added: [[String]] = []
            // Two statements: keys 5 (there already) and 100, then key 101 alone.
            try db.insert(distinct, rows: [[.integer(5), .integer(9), .null], [.integer(100), .integer(7), .text("new")],
                                           [.integer(101), .integer(8), .null]]) { row in
                added.append((0..<4).map { row.isNull(at: $0) ? "null" : row.string(at: $0) ?? "" })
            }
            try db.insert(distinct, rows: [[.integer(102), .integer(1), .null], [.integer(103), .integer(2), .text("x")]]) { row in
                added.append((0..<4).map { row.isNull(at: $0) ? "null" : row.string(at: $0) ?? "" })
            }
            var stored: [String] = []
            try db.query("SELECT id, k, n, coalesce(s, 'null') FROM t ORDER BY id") { row in
                stored.append("\(row.int64(at: 0)) \(row.int64(at: 1)) \(row.int64(at: 2)) \(row.string(at: 3) ?? "")")
            }
            return (stored, added)
        }
        let expected = (0..<75).filter { $0 != 40 && $0 != 74 }.enumerated().map { offset, index in
            "\(offset + 1) \(index) \(index == 3 ? 3 : 1) \(index == 3 ? "74" : index.isMultiple(of: 2) ? "\(index)" : "null")"
        } + ["74 100 7 new", "75 101 8 null", "76 102 1 null", "77 103 2 x"]
        #expect(stored == expected)
        #expect(added == [["75", "101", "8", "null"], ["76", "102", "1", "null"], ["77", "103", "2", "x"]])
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
        let rows = Int(StoreTuning.pagesPerCheckpoint) * 3 / 2
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
        let checkpointer = try #require((store.engine as? SQLiteEngine)?.checkpointer)
        func logBytes() -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: database.path + "-wal")[.size]) as? NSNumber)?.int64Value ?? 0
        }
        try store.write { try $0.connection.run("CREATE TABLE filler (bytes BLOB NOT NULL)") }
        // About two pages a transaction, 8,000 transactions: 16,000 frames (64 MiB) if the log
        // never started over.
        var largest: Int64 = 0
        var writesWhileCopying = 0
        for _ in 0..<8_000 {
            try store.write { try $0.connection.run("INSERT INTO filler VALUES (randomblob(3000))") }
            largest = max(largest, logBytes())
            // The stream goes on while a checkpoint copies, but waits for one that 200 writes
            // (400 pages) did not see end: a machine busy with the other tests starved the
            // background thread (the test took 75 s, not 1, and the log grew past the bound,
            // a catch-up of more than `catchUpPages` being left to the background by design).
            // Without the catch-up the log still never starts over: each checkpoint ends with
            // pages appended after it began.
            writesWhileCopying = checkpointer.checkpointsQueued > checkpointer.checkpointsCompleted ? writesWhileCopying + 1 : 0
            if writesWhileCopying >= 200 {
                checkpointer.drain()
                writesWhileCopying = 0
            }
        }
        let bound = Int64(StoreTuning.pagesPerCheckpoint) * 8 * 4_096
        #expect(largest <= bound, "the log grew to \(largest / 1_048_576) MiB under small writes")
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM filler") } == 8_000)
    }
}
