import Foundation
import LeakReport
import Synchronization

/// The leak history database: projects, tokens, commits, runs and checks, on SQLite (the
/// embedded default) or PostgreSQL (several servers on one database). The queries are written
/// once, against `SQLConnection`; the engine supplies snapshots and transactions.
///
/// ```swift
/// let store = try LeakStore(database: "leakhistory.sqlite")            // or "postgres://ci@db/leaks"
/// let receipt = try store.ingest(run)
/// ```
public final class LeakStore: LeakStorage {
    /// Where the data lives: a file path, or a `postgres://` URL without its password.
    public var location: String { engine.location }
    let engine: any StoreEngine
    /// Runs of more checks than this are stored in slices of this many (`StoreOptions.ingestSliceChecks`).
    let ingestSliceChecks: Int
    /// Called after each slice of a run stored in slices is committed, with the slice's index:
    /// tests read between two slices, or fail the upload there.
    package let sliceObserver = Mutex<(@Sendable (Int) throws -> Void)?>(nil)
    /// The tokens `verifyToken` found live lately (`StoreOptions.tokenMemory`).
    let tokenMemory: TokenMemory

    /// Opens (creating if needed) and migrates the SQLite database at `path`.
    /// - Throws: `LeakStoreError.schemaTooNew` for a database migrated by a newer build;
    ///   `.walUnavailable` when WAL cannot be enabled; `.unavailable` when the file cannot be opened.
    public convenience init(path: String, options: StoreOptions = StoreOptions(),
                            progress: UpgradeProgress.Observer? = nil) throws {
        try self.init(engine: SQLiteEngine(path: path, options: options, progress: progress), options: options)
    }

    /// Opens the database that `database` names: `postgres://…` or `postgresql://…` (libpq's
    /// URL form) for PostgreSQL, `sqlite:///path` or a plain path for SQLite.
    ///
    /// A database of an older layout is upgraded in place before the store opens; `progress`
    /// hears how the batches of a long upgrade come along (the server prints them).
    /// - Throws: `LeakStoreError`; `.unavailable` when PostgreSQL cannot be reached; whatever
    ///   `progress` throws (the upgrade stops after the batches committed so far).
    public convenience init(database: String, options: StoreOptions = StoreOptions(),
                            progress: UpgradeProgress.Observer? = nil) throws {
        switch DatabaseLocation(database) {
        case let .sqlite(path):
            try self.init(engine: SQLiteEngine(path: path, options: options, progress: progress), options: options)
        case let .postgres(url):
            try self.init(engine: PostgresEngine(url: url, options: options, progress: progress), options: options)
        }
    }

    init(engine: any StoreEngine, options: StoreOptions) {
        self.engine = engine
        ingestSliceChecks = options.ingestSliceChecks
        tokenMemory = TokenMemory(lifetime: options.tokenMemory)
    }

    /// Runs `body` in one read snapshot: every statement in it sees the same data, also while
    /// uploads commit. The queries, the tests and the benchmarks use it.
    package func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try engine.read(body)
    }

    /// Runs `body` in one write transaction (see `StoreEngine.write`). `cost`: about how many
    /// checks' worth of work it is (a run's checks, a slice); 1 for anything small.
    package func write<T>(cost: Int = 1, _ body: (WriteSession) throws -> T) throws -> T {
        try engine.write(cost: cost, body)
    }

    /// The schema version of the database (the highest applied migration).
    public func schemaVersion() throws -> Int {
        try read { Int(try $0.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0) }
    }

    /// Answers a trivial query in a read snapshot: the health check.
    public func checkHealth() throws {
        _ = try read { try $0.scalarInt("SELECT count(*) FROM projects") }
    }

    /// The bytes the database occupies on disk (SQLite: the file plus its write-ahead log;
    /// PostgreSQL: the schema's tables with their indexes), or nil when it cannot be read.
    public func sizeOnDisk() -> Int64? {
        engine.sizeOnDisk()
    }

    /// SQLite: copies the write-ahead log into the main file (the size benchmarks measure);
    /// the store stays open. Other engines: nothing.
    package func checkpoint() throws {
        try engine.checkpoint()
    }

    /// At shutdown: SQLite copies its write-ahead log into the main file; PostgreSQL closes its connections.
    public func close() throws {
        try engine.close()
    }
}

/// What `--database` names.
enum DatabaseLocation: Equatable {
    case sqlite(path: String)
    case postgres(url: String)

    init(_ text: String) {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if text.hasPrefix("sqlite://") {
            self = .sqlite(path: String(text.dropFirst("sqlite://".count)))
        } else {
            self = .sqlite(path: text)
        }
    }
}
