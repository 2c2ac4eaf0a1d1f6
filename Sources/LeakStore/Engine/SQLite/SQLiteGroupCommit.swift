import Foundation

/// The one writer connection's writes, committed together when they arrive together.
///
/// Every `COMMIT` appends each page its transaction changed to the write-ahead log, and takes
/// and drops the write lock: small uploads in flight, each its own transaction, wrote mostly the
/// same rightmost leaves of runs, key states and their indexes as the upload beside it, and
/// every upload waited for the one before it to commit. Here writes that queue up behind one another run in one transaction, each in a
/// savepoint of its own, up to `StoreTuning.writesPerTransaction` of them and `StoreTuning.checksPerTransaction` checks' worth of work — a
/// write bigger than an upload (a slice of a big run) goes alone, so that a small upload waits
/// for at most one such write ahead of it, as it did before:
///
/// - Each caller returns (a detached write's completion is called) only once the transaction
///   holding its write has committed: an acknowledged upload is as durable as before.
/// - A write that throws is rolled back to its savepoint and fails its caller alone; the
///   others commit. Serially, in the order taken, each sees exactly the writes before it.
/// - Small writes queued behind costlier ones are taken first, in a transaction of their own
///   (`StoreTuning.smallWriteLimit`): a CI shard's upload does not wait for a batch of whole suites.
/// - When the engine itself gives up the transaction (a full disk, an I/O error) or the commit
///   fails, every write of the batch runs again alone, each in its own transaction, so that each
///   caller hears its own outcome. A write body must allow that: `StoreEngine.write` already asks
///   it to read what it depends on, since PostgreSQL runs it again after a lost race.
///
/// One thread runs them (started with the first write): it takes the writes queued so far,
/// runs them, and answers their callers — a caller waiting in `write` is woken, a `detached`
/// write's completion is called on the writer thread — and goes on with what queued meanwhile,
/// waking nobody to do it. It sleeps when nothing is queued. Before it, the first caller to find
/// no batch running led one and then handed the lead to a caller that was asleep, and the
/// writer stood idle while that caller woke, about half as long as a transaction takes; an
/// upload's answer now goes out from the writer thread.
final class SQLiteGroupCommit: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let session: WriteSession
    /// Called at the start of each transaction (the checkpointer's catch-up).
    private let beforeTransaction: () -> Void

    // `lock` guards everything below; the type is @unchecked Sendable for that reason. The
    // connection, the session and each write once taken are the writer thread's; a waiting
    // caller reads its write's `failure` after the writer's signal.
    private let lock = NSCondition()
    private var queued: [Write] = []
    /// The cost of the writes in `queued` (`StoreTuning.detachedCostLimit`).
    private var queuedCost = 0
    private var transactions = 0
    /// Whether the last batch was small writes taken ahead of costlier ones (`nextBatch`).
    private var tookSmallFirst = false
    private var writer = WriterState.notStarted
    /// Signalled once when a write is queued for a writer asleep, or when it is to stop.
    private let writerWake = DispatchSemaphore(value: 0)

    private enum WriterState { case notStarted, running, asleep, stopping }

    /// Writes waiting for the writer, and the write transactions begun so far (tests).
    var counts: (queued: Int, transactions: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (queued.count, transactions)
    }

    /// One caller's write while it waits.
    private final class Write {
        /// Runs the caller's body; nil once answered (`withoutActuallyEscaping` checks that
        /// nothing holds a waiting caller's body).
        var body: ((WriteSession) throws -> Void)?
        var failure: (any Error)?
        /// Wakes a caller waiting in `write`; nil for a detached write.
        let wake: DispatchSemaphore?
        /// A detached write's answer, called on the writer thread once its transaction is over.
        let completion: (@Sendable ((any Error)?) -> Void)?
        /// About how many checks' worth of work it is (`LeakStore.write`).
        let cost: Int
        /// Runs alone and outside any transaction (`exclusive`).
        let outsideTransaction: Bool
        /// May share a transaction with other writes.
        var shares: Bool { !outsideTransaction && cost <= StoreTuning.sharedWriteLimit }
        /// May go ahead of costlier writes (`StoreTuning.smallWriteLimit`).
        var isSmall: Bool { !outsideTransaction && cost <= StoreTuning.smallWriteLimit }

        init(cost: Int, outsideTransaction: Bool, completion: (@Sendable ((any Error)?) -> Void)?,
             _ body: @escaping (WriteSession) throws -> Void) {
            self.cost = cost
            self.outsideTransaction = outsideTransaction
            self.completion = completion
            wake = completion == nil ? DispatchSemaphore(value: 0) : nil
            self.body = body
        }
    }

    init(connection: SQLiteConnection, session: WriteSession, beforeTransaction: @escaping () -> Void) {
        self.connection = connection
        self.session = session
        self.beforeTransaction = beforeTransaction
    }

    /// Runs `body` in a write transaction (possibly shared with other callers' writes, each in
    /// its own savepoint) on the writer thread; returns once that transaction has committed.
    /// `cost`: about how many checks' worth of work it is.
    func write<T>(cost: Int = 1, _ body: (WriteSession) throws -> T) throws -> T {
        try submit(cost: cost, outsideTransaction: false, body)
    }

    /// Queues `body` as `write` does and returns without waiting for it (only for room, while the
    /// writes queued cost too much: `StoreTuning.detachedCostLimit`); `completion` is called on the writer
    /// thread once the transaction holding it has committed (nil) or with what failed it. It must
    /// be quick, and must not write (it would wait for itself): the writes after it wait for it.
    func detached(cost: Int, _ body: @escaping (WriteSession) throws -> Void,
                  completion: @escaping @Sendable ((any Error)?) -> Void) {
        enqueue(Write(cost: cost, outsideTransaction: false, completion: completion, body))
    }

    /// Runs `body` with the connection to itself, outside any transaction (a checkpoint at
    /// shutdown), after the writes queued before it and before those queued after it.
    func exclusive<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try submit(cost: 1, outsideTransaction: true) { [connection] _ in try body(connection) }
    }

    /// Lets the writer thread end once the writes queued so far are done (the engine is going away).
    func stop() {
        lock.lock()
        let wasAsleep = writer == .asleep
        if writer != .notStarted { writer = .stopping }
        lock.unlock()
        if wasAsleep { writerWake.signal() }
    }

    private func submit<T>(cost: Int, outsideTransaction: Bool, _ body: (WriteSession) throws -> T) throws -> T {
        var result: T?
        try withoutActuallyEscaping(body) { body in
            let write = Write(cost: cost, outsideTransaction: outsideTransaction, completion: nil) { session in
                result = try body(session)
            }
            enqueue(write)
            write.wake?.wait()
            if let failure = write.failure { throw failure }
        }
        // A body that returned stored its result; one that threw has thrown above.
        return result!
    }

    private func enqueue(_ write: Write) {
        lock.lock()
        while write.completion != nil, queuedCost > 0, queuedCost + write.cost > StoreTuning.detachedCostLimit {
            lock.wait()
        }
        queued.append(write)
        queuedCost += write.cost
        let state = writer
        if state == .notStarted || state == .asleep { writer = .running }
        lock.unlock()
        switch state {
        case .notStarted:
            let thread = Thread { [self] in runWriter() }
            thread.name = "leakhistory-writer"
            // A big run's slice and its key states are stored on it.
            thread.stackSize = 4 << 20
            thread.start()
        case .asleep:
            writerWake.signal()
        case .running, .stopping:
            break
        }
    }

    /// The writer thread: batches until nothing is queued, then sleeps until something is. Its
    /// callers are answered outside the lock: a detached write's body and completion may hold the
    /// last reference to the store, whose end stops the writer.
    private func runWriter() {
        while let batch = nextQueuedBatch() {
            run(batch)
            for done in batch {
                done.body = nil
                done.wake?.signal()
            }
            for done in batch { done.completion?(done.failure) }
        }
    }

    /// The next batch, taken off the queue; waits while nothing is queued; nil once stopped.
    private func nextQueuedBatch() -> [Write]? {
        lock.lock()
        defer { lock.unlock() }
        while queued.isEmpty {
            if writer == .stopping { return nil }
            writer = .asleep
            lock.unlock()
            writerWake.wait()
            lock.lock()
        }
        let batch = nextBatch()
        queued.removeAll { queuedWrite in batch.contains { $0 === queuedWrite } }
        queuedCost -= batch.reduce(0) { $0 + $1.cost }
        // Room for detached writes waiting for it.
        lock.broadcast()
        return batch
    }

    /// The small writes queued behind a costlier first one, when the last batch was not such a
    /// one (`StoreTuning.smallWriteLimit`); otherwise the first write queued and those behind it that fit
    /// with it: at most `StoreTuning.writesPerTransaction` writes and `StoreTuning.checksPerTransaction` in all; a write outside any
    /// transaction, or costlier than `StoreTuning.sharedWriteLimit`, goes alone. Lock held.
    private func nextBatch() -> [Write] {
        // Never past a write outside any transaction: it runs after the writes queued before it only.
        let smallFirst = queued[0].isSmall || tookSmallFirst
            ? [] : Array(queued.lazy.prefix { !$0.outsideTransaction }.filter(\.isSmall).prefix(StoreTuning.writesPerTransaction))
        tookSmallFirst = !smallFirst.isEmpty
        if !smallFirst.isEmpty { return smallFirst }
        var batch = [queued[0]]
        guard queued[0].shares else { return batch }
        var cost = queued[0].cost
        for next in queued.dropFirst().prefix(StoreTuning.writesPerTransaction - 1) {
            cost += next.cost
            guard next.shares, cost <= StoreTuning.checksPerTransaction else { break }
            batch.append(next)
        }
        return batch
    }

    /// Runs `batch` in one transaction, or each write alone when the transaction cannot hold them.
    private func run(_ batch: [Write]) {
        if batch[0].outsideTransaction {
            do { try batch[0].body?(session) } catch { batch[0].failure = error }
            return
        }
        guard batch.count > 1 else {
            batch.forEach(runAlone)
            return
        }
        beforeTransaction()
        countTransaction()
        do {
            try session.transaction { session in
                try connection.transaction(.immediate) {
                    for write in batch {
                        try runInSavepoint(write, session)
                    }
                }
            }
        } catch {
            for write in batch {
                write.failure = nil
                runAlone(write)
            }
        }
    }

    /// One write of a shared transaction: its failure is its own, unless the engine rolled the
    /// whole transaction back, which is thrown on to `run`.
    private func runInSavepoint(_ write: Write, _ session: WriteSession) throws {
        try connection.run("SAVEPOINT grouped_write")
        do {
            try write.body?(session)
            try connection.run("RELEASE grouped_write")
        } catch {
            guard connection.inTransaction else { throw error }
            try connection.run("ROLLBACK TO grouped_write")
            try connection.run("RELEASE grouped_write")
            // Ids interned by the rolled-back write may name rows that are gone.
            session.forgetInterned()
            write.failure = error
        }
    }

    private func runAlone(_ write: Write) {
        beforeTransaction()
        countTransaction()
        do {
            try session.transaction { session in
                try connection.transaction(.immediate) { try write.body?(session) }
            }
        } catch {
            write.failure = error
        }
    }

    private func countTransaction() {
        lock.lock()
        transactions += 1
        lock.unlock()
    }
}
