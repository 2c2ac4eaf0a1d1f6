import CSQLite
import Foundation

/// The embedded engine: one SQLite file in WAL mode. One writer connection serves every write,
/// those that arrive together in one transaction (`SQLiteGroupCommit`); reads go to a pool of
/// read-only connections, which WAL lets run while the writer writes; the log is copied into the
/// file in the background (`SQLiteCheckpointer`).
final class SQLiteEngine: StoreEngine {
    let path: String
    private let sqliteWriter: SQLiteConnection
    let writes: SQLiteGroupCommit
    private let readers: SQLiteReaderPool
    let checkpointer: SQLiteCheckpointer

    var location: String { path }

    /// Opens (creating if needed) and migrates the database at `path`.
    /// - Throws: `LeakStoreError.schemaTooNew`, `.walUnavailable`, `.unavailable` when the file
    ///   cannot be opened.
    init(path: String, options: StoreOptions, progress: UpgradeProgress.Observer? = nil) throws {
        self.path = path
        do {
            let connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeoutMs: options.busyTimeoutMs)
            let mode = try connection.scalarText("PRAGMA journal_mode = WAL") ?? ""
            guard mode.lowercased() == "wal" else {
                throw LeakStoreError.walUnavailable(path: path, journalMode: mode)
            }
            try connection.execute("PRAGMA synchronous = \(options.synchronous.rawValue.uppercased())")
            try connection.execute("PRAGMA foreign_keys = ON")
            let migrator = Migrator(migrations: Migration.all, location: path, progress: progress,
                                    batchRows: options.upgradeBatchChecks)
            try migrator.migrate(connection) { body in
                try connection.transaction(.immediate, body)
            }
            // Each write of a shared transaction runs in a savepoint (`SQLiteGroupCommit`), whose
            // journal keeps the pages it changes as they were. SQLite moves that journal to a
            // temporary file past 64 KiB (16 pages): on uploads with new commits or new keys a
            // file was created, written page by page and unlinked every few uploads (743 files
            // and ~200,000 `pwrite`s for 3,000 10-check uploads). In memory instead: it holds one
            // write's pages at a time (emptied at each release), and a write costlier than
            // `StoreTuning.sharedWriteLimit` runs alone, without a savepoint. Set after the
            // migrations, whose big sorts keep spilling to temporary files.
            try connection.execute("PRAGMA temp_store = MEMORY")
            // A CI upload changes the newest page of each of its keys' states (they are in key
            // order); SQLite's default cache held too few of them, and every upload of a big
            // suite read most of its pages back from the file.
            try connection.execute("PRAGMA cache_size = -\(StoreTuning.writerCacheKiB)")
            sqliteWriter = connection
            let checkpointer = try SQLiteCheckpointer(path: path, busyTimeoutMs: options.busyTimeoutMs)
            checkpointer.watch(connection)
            self.checkpointer = checkpointer
            writes = SQLiteGroupCommit(connection: connection,
                                       session: WriteSession(connection, internedLimit: options.internedLimit),
                                       beforeTransaction: { checkpointer.beforeWrite(connection) })
        } catch let error as SQLiteError {
            throw error.storeError ?? LeakStoreError.unavailable(error.description)
        }
        readers = SQLiteReaderPool(path: path, limit: options.readerCount, busyTimeoutMs: options.busyTimeoutMs,
                                   memoryMapBytes: options.readerMemoryMapBytes,
                                   budget: options.queryTimeBudget)
    }

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try mapped {
            try readers.withReader { reader in try reader.transaction(.deferred) { try body(reader) } }
        }
    }

    func write<T>(cost: Int, _ body: (WriteSession) throws -> T) throws -> T {
        try mapped { try writes.write(cost: cost, body) }
    }

    func writeDetached(cost: Int, _ body: @escaping @Sendable (WriteSession) throws -> Void,
                       completion: @escaping @Sendable ((any Error)?) -> Void) {
        writes.detached(cost: cost, body) { failure in
            completion(failure.map(Self.mapped))
        }
    }

    func sizeOnDisk() -> Int64? {
        [path, path + "-wal"].reduce(0) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value
            return total + (size ?? 0)
        }
    }

    deinit {
        writes.stop()
        checkpointer.stopWatching(sqliteWriter)
    }

    /// Copies the write-ahead log into the main file and truncates it.
    func close() throws { try checkpoint() }

    func checkpoint() throws {
        checkpointer.drain()
        try mapped { try writes.exclusive { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") } }
    }

    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw Self.mapped(error)
        }
    }

    /// SQLite's failure in the store's words where it has them (`SQLiteError.storeError`).
    private static func mapped(_ error: any Error) -> any Error {
        (error as? SQLiteError)?.storeError ?? error
    }
}

extension SQLiteError {
    /// The store's word for a failure the client should hear about, or nil for one that stays a
    /// logged 500. A full disk is `.full`: the transaction was rolled back, and the same upload
    /// succeeds once there is space again. A locked database is `.busy`, a read interrupted for
    /// running past its budget `.queryTimeout`.
    var storeError: LeakStoreError? {
        switch primaryCode {
        case SQLITE_FULL: .full(message)
        case SQLITE_BUSY, SQLITE_LOCKED: .busy(message)
        // Only reads have a deadline (`StoreOptions.queryTimeBudget`).
        case SQLITE_INTERRUPT: .queryTimeout(message)
        case SQLITE_CANTOPEN: .unavailable(message)
        default: nil
        }
    }
}
