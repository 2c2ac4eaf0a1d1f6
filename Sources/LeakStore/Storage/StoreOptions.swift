/// How a `LeakStore` opens its database.
public struct StoreOptions: Sendable, Hashable {
    /// SQLite's `synchronous` setting for the writer.
    public enum Synchronous: String, Sendable, Hashable, Codable, CaseIterable {
        /// No fsync: fastest; an OS crash or power loss may lose recent commits (a killed process does not).
        case off
        /// In WAL, fsync at checkpoints only: a killed process loses nothing, power loss may lose the last commits.
        case normal
        /// fsync every commit.
        case full
    }

    public var synchronous: Synchronous
    /// How many read-only connections may be open at once.
    public var readerCount: Int
    /// How long a statement waits on a lock before giving up with `SQLITE_BUSY`.
    public var busyTimeoutMs: Int32
    /// How long one read (everything done with a reader checked out) may run before SQLite
    /// interrupts it with `SQLITE_INTERRUPT`; nil for no limit. Writes are never interrupted.
    public var queryTimeBudget: Duration?
    /// Roughly how many old rows one transaction of an upgrade in place copies (`UpgradeProgress`):
    /// checks in migration 6, key states in migration 8; smaller batches hold the writer for less
    /// time each.
    public var upgradeBatchChecks: Int
    /// A run of more checks than this is stored in slices of this many, each its own short write
    /// transaction, and published at once when the last is in (`LeakStore.ingest`): other writes
    /// wait for one slice, not for the whole run. 2,000 checks take a few tens of milliseconds.
    public var ingestSliceChecks: Int
    /// How many interned ids (names, check sites and leak keys together) a write connection keeps
    /// from one transaction to the next; a transaction that finds more starts with none
    /// (`WriteSession`). The default holds the keys of many projects of a few thousand checks a
    /// run; a server whose uploads name more keys than the limit in turn reads each run's keys
    /// again (`StoreTuning.keysPerStatement` a statement).
    public var internedLimit: Int
    /// How long a token the store found live is remembered as live (`LeakStore.rememberedToken`,
    /// which never reads the database), counted from the last time the database said so; zero
    /// remembers nothing. A revoke through this store forgets the token at once; one through
    /// another process (`tokens revoke`, another server on the same database) is seen at the
    /// token's next `verifyToken`.
    public var tokenMemory: Duration
    /// How much of the database file each SQLite read connection maps into memory
    /// (`PRAGMA mmap_size`) instead of copying each page it reads through `pread` into a page
    /// cache of its own: the pages come from the kernel's file cache, shared by every
    /// connection, and a big database's reads copy nothing. Address space, not memory: the mapped pages are the file
    /// cache's (the process's RSS counts those it touched). 0 maps nothing. The writer never
    /// maps: it keeps the pages it changes in a page cache of its own (`StoreTuning.writerCacheKiB`).
    public var readerMemoryMapBytes: Int64

    public init(synchronous: Synchronous = .normal, readerCount: Int = 4, busyTimeoutMs: Int32 = 5_000,
                queryTimeBudget: Duration? = nil, upgradeBatchChecks: Int = 50_000, ingestSliceChecks: Int = 2_000,
                internedLimit: Int = 150_000, tokenMemory: Duration = .seconds(10),
                readerMemoryMapBytes: Int64 = 1 << 30) {
        self.synchronous = synchronous
        self.readerCount = max(1, readerCount)
        self.busyTimeoutMs = busyTimeoutMs
        self.queryTimeBudget = queryTimeBudget
        self.upgradeBatchChecks = max(1, upgradeBatchChecks)
        self.ingestSliceChecks = max(1, ingestSliceChecks)
        self.internedLimit = max(0, internedLimit)
        self.tokenMemory = max(.zero, tokenMemory)
        self.readerMemoryMapBytes = max(0, readerMemoryMapBytes)
    }
}
