import CSQLite
import Dispatch
import Synchronization

/// Copies the write-ahead log into the database file on a connection and a thread of its own, so
/// that no request's `COMMIT` does it, and lets the writer start the log over.
///
/// SQLite's own automatic checkpoint runs inside the `COMMIT` that grows the log past its
/// threshold, while that commit still holds the writer: after a big slice or a merge the next
/// small upload's commit copied several megabytes and fsynced the file, and every write behind
/// it waited. The writer's commit hook (`sqlite3_wal_hook`, which replaces the automatic
/// checkpoint) only asks for a checkpoint here, once `StoreTuning.pagesPerCheckpoint` pages more
/// than it last asked for are in the log; a passive checkpoint takes neither the writer's lock nor waits for
/// readers: it copies the frames no reader still needs.
///
/// The writer starts the log over (writes from its first frame again) only in a transaction that
/// begins with every frame copied. Under a steady stream of uploads the writer always appended
/// a few more while the background copied, so the log never started over: it grew without
/// bound, and every commit past its first pages asked for yet another checkpoint. So once a background checkpoint has ended, the
/// writer's next transaction first copies what was appended meanwhile itself — a passive
/// checkpoint of at most `StoreTuning.catchUpPages`, no more than an automatic checkpoint would copy — and
/// then begins with the log fully copied. Killed at any moment, nothing is lost: a committed
/// transaction is in the log until it is copied.
final class SQLiteCheckpointer: Sendable {
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "leakhistory.store.checkpointer", qos: .utility)
    private let scheduled = Atomic<Bool>(false)
    private let queued = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    /// The frames the last background checkpoint had copied when it ended, or -1 once the writer
    /// has taken that news (`beforeWrite`).
    private let copiedInBackground = Atomic<Int32>(-1)
    /// The writer's view of the log: touched by its commit hook and `beforeWrite` only, both on
    /// the writer connection, which one thread uses at a time (the lock is never contended).
    private let log = Mutex(LogPosition())

    private struct LogPosition {
        /// The log's size in pages at the writer's last commit.
        var pages: Int32 = 0
        /// The log's size when a checkpoint was last asked for (0 once it may have started over).
        var asked: Int32 = 0
    }

    /// How many checkpoints have been queued, and how many have run, in the background (tests).
    var checkpointsQueued: Int { queued.load(ordering: .acquiring) }
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
            if let context {
                Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(pages: pages)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Undoes `watch`.
    func stopWatching(_ writer: SQLiteConnection) {
        sqlite3_wal_hook(writer.handle, nil, nil)
    }

    /// Called on the writer's queue before each of its transactions: once a background checkpoint
    /// has ended, copies the few pages appended while it ran, so that this transaction finds the
    /// log fully copied and starts it over.
    func beforeWrite(_ writer: SQLiteConnection) {
        let copied = copiedInBackground.exchange(-1, ordering: .acquiringAndReleasing)
        guard copied >= 0 else { return }
        log.withLock { log in
            guard log.pages - copied <= StoreTuning.catchUpPages else { return }
            var pages: Int32 = -1, done: Int32 = -1
            // Best effort, and never waits: busy (the background started another) leaves it there.
            if sqlite3_wal_checkpoint_v2(writer.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &pages, &done) == SQLITE_OK,
               pages == done {
                log.asked = 0
            }
        }
    }

    /// The writer's commit hook: `pages` is the log's size after the commit.
    private func committed(pages: Int32) {
        log.withLock { log in
            if pages < log.pages { log.asked = 0 } // the log started over
            log.pages = pages
            guard pages - log.asked >= StoreTuning.pagesPerCheckpoint else { return }
            log.asked = pages
            schedule()
        }
    }

    /// Queues one checkpoint unless one is queued already.
    private func schedule() {
        guard !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queued.add(1, ordering: .releasing)
        queue.async { [self] in
            scheduled.store(false, ordering: .releasing)
            var pages: Int32 = -1, copied: Int32 = -1
            // Best effort: a failed checkpoint leaves the frames in the log for the next one.
            if sqlite3_wal_checkpoint_v2(connection.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &pages, &copied) == SQLITE_OK {
                copiedInBackground.store(copied, ordering: .releasing)
            }
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
