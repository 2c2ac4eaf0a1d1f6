import CSQLite
import Foundation
import LeakReport

/// The leak history database: projects, tokens, commits, runs and checks in one SQLite file.
///
/// One writer connection serves every write on a serial queue; reads go to a pool of read-only
/// connections, which WAL lets run while the writer writes. Opening the store migrates the file.
///
/// ```swift
/// let store = try LeakStore(path: "leakhistory.sqlite")
/// let receipt = try store.ingest(run)
/// ```
public final class LeakStore: Sendable {
    /// The database file.
    public let path: String
    public let options: StoreOptions
    let writer: WriterConnection
    private let writerQueue = DispatchQueue(label: "leakhistory.store.writer")
    private let readers: ReaderPool

    /// Opens (creating if needed) and migrates the database at `path`.
    /// - Throws: `SQLiteError` when the file cannot be opened; `LeakStoreError.schemaTooNew`
    ///   for a database migrated by a newer build; `.walUnavailable` when WAL cannot be enabled.
    public init(path: String, options: StoreOptions = StoreOptions()) throws {
        self.path = path
        self.options = options
        let connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeoutMs: options.busyTimeoutMs)
        let mode = try connection.scalarText("PRAGMA journal_mode = WAL") ?? ""
        guard mode.lowercased() == "wal" else {
            throw LeakStoreError.walUnavailable(path: path, journalMode: mode)
        }
        try connection.execute("PRAGMA synchronous = \(options.synchronous.rawValue.uppercased())")
        try connection.execute("PRAGMA foreign_keys = ON")
        try Migrator(migrations: Migration.all).migrate(connection)
        writer = WriterConnection(connection)
        readers = ReaderPool(path: path, limit: options.readerCount, busyTimeoutMs: options.busyTimeoutMs)
    }

    /// Runs `body` on the writer connection, on the writer queue.
    func write<T>(_ body: (WriterConnection) throws -> T) throws -> T {
        try writerQueue.sync { try body(writer) }
    }

    /// Runs `body` with a read-only connection from the pool, in one read transaction: every
    /// statement in it sees the same snapshot, also while uploads commit. Tests and read routes
    /// use it.
    public func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try readers.withReader { reader in try reader.transaction(.deferred) { try body(reader) } }
    }

    /// The schema version of the file (the highest applied migration).
    public func schemaVersion() throws -> Int {
        try read { Int(try $0.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0) }
    }

    /// Answers a trivial query through a reader: the health check.
    public func checkHealth() throws {
        _ = try read { try $0.scalarInt("SELECT count(*) FROM projects") }
    }

    /// The bytes the database occupies on disk: the main file plus its write-ahead log.
    public func sizeOnDisk() -> Int64 {
        let files = [path, path + "-wal"]
        return files.reduce(0) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value
            return total + (size ?? 0)
        }
    }

    /// Copies the write-ahead log into the main file and truncates it; run at shutdown.
    public func checkpoint() throws {
        try write { try $0.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}

/// The writer connection and what it caches between transactions (interned names).
/// Only the store's writer queue touches it.
final class WriterConnection: @unchecked Sendable {
    let connection: SQLiteConnection
    var typeIDs: [String: Int64] = [:]
    var scenarioIDs: [String: Int64] = [:]

    init(_ connection: SQLiteConnection) { self.connection = connection }

    /// Runs `body` in an IMMEDIATE transaction; a rollback also forgets names interned in it.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        do {
            return try connection.transaction(.immediate, body)
        } catch {
            typeIDs.removeAll()
            scenarioIDs.removeAll()
            throw error
        }
    }
}
