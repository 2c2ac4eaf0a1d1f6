import CSQLite
import Dispatch
import Synchronization

/// Copies the write-ahead log into the database file on a connection and a thread of its own, so
/// that no request's `COMMIT` does it.
///
/// SQLite's own automatic checkpoint runs inside the `COMMIT` that grows the log past 1,000
/// pages, while that commit still holds the writer: after a big slice or a merge the next small
/// upload's commit copied several megabytes and fsynced the file (40–200 ms on a busy machine),
/// and every write behind it waited. The writer's commit hook (`sqlite3_wal_hook`, which replaces
/// the automatic checkpoint) only asks for a checkpoint here; a passive checkpoint takes neither
/// the writer's lock nor waits for readers: it copies the frames no reader still needs, and the
/// writer starts the log over at a later transaction once all of it is copied. Killed at any
/// moment, nothing is lost: a committed transaction is in the log until it is copied.
final class SQLiteCheckpointer: Sendable {
    /// A checkpoint is asked for once the log holds this many pages (SQLite's automatic default).
    static let pagesPerCheckpoint: Int32 = 1_000

    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "leakhistory.store.checkpointer", qos: .utility)
    private let scheduled = Atomic<Bool>(false)
    private let completed = Atomic<Int>(0)

    /// How many checkpoints have run (tests).
    var checkpointsCompleted: Int { completed.load(ordering: .acquiring) }

    init(path: String, busyTimeoutMs: Int32) throws {
        connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeoutMs: busyTimeoutMs)
        // A connection learns that the file is in WAL mode when it first reads it; until then a
        // checkpoint on it does nothing.
        _ = try connection.scalarText("PRAGMA journal_mode")
    }

    /// Makes `writer`'s commits ask for checkpoints here instead of running SQLite's own.
    /// `self` must outlive `writer`'s use of the hook (the engine holds both).
    func watch(_ writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.handle, { context, _, _, pages in
            if pages >= SQLiteCheckpointer.pagesPerCheckpoint, let context {
                Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().schedule()
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Undoes `watch`.
    func stopWatching(_ writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.handle, nil, nil)
    }

    /// Queues one checkpoint unless one is queued already.
    private func schedule() {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            scheduled.store(false, ordering: .releasing)
            // Best effort: a failed checkpoint leaves the frames in the log for the next one.
            _ = sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            completed.add(1, ordering: .releasing)
        }
    }

    /// Waits for a checkpoint in progress or queued (shutdown, tests).
    func drain() {
        queue.sync {}
    }

    /// Runs `body` with checkpoints held back until it returns (tests).
    func whilePaused<T>(_ body: () throws -> T) rethrows -> T {
        queue.suspend()
        defer { queue.resume() }
        return try body()
    }
}
