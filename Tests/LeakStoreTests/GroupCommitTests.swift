import Foundation
@testable import LeakStore
import Testing

/// SQLite's writes that queue up behind one another commit in one transaction
/// (`SQLiteGroupCommit`), and each caller still hears its own outcome.
@Suite("SQLite group commit")
struct GroupCommitTests {
    struct Refused: Error, Equatable {
        let index: Int
    }

    /// A value shared by the writing threads.
    final class Shared<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value
        init(_ value: Value) { self.value = value }
        func withLock<T>(_ body: (inout Value) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    /// A store with a table `t`, and its group commit.
    private func store() throws -> (TemporaryDatabase, LeakStore, SQLiteGroupCommit) {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        try store.write { try $0.connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE, note BLOB)") }
        let writes = try #require((store.engine as? SQLiteEngine)?.writes)
        return (database, store, writes)
    }

    /// Holds one write open inside its transaction until `queued` writes (of `costs`, 1 each by
    /// default) wait behind it, queued one after another in index order, then lets it finish;
    /// returns each waiting write's outcome by index. `callers`, when given, gets each write's
    /// calling thread by index, the held write's as -1.
    private func writesQueuedBehindOne(_ writes: SQLiteGroupCommit, _ store: LeakStore, queued: Int, costs: [Int] = [],
                                       callers: Shared<[Int: pthread_t]>? = nil,
                                       _ body: @escaping @Sendable (Int, WriteSession) throws -> Int64)
        throws -> [Int: Result<Int64, any Error>] {
        let outcomes = Shared<[Int: Result<Int64, any Error>]>([:])
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        // Threads of their own: each waits inside the store, and the shared pool has too few.
        func start(_ work: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                work()
                group.leave()
            }.start()
        }
        start {
            callers?.withLock { $0[-1] = pthread_self() }
            _ = try? store.write { writer in
                holding.signal()
                release.wait()
                try writer.connection.run("INSERT INTO t (v) VALUES ('first')")
            }
        }
        holding.wait()
        let deadline = ContinuousClock.now + .seconds(10)
        for index in 0..<queued {
            let cost = index < costs.count ? costs[index] : 1
            start {
                callers?.withLock { $0[index] = pthread_self() }
                let outcome = Result { try store.write(cost: cost) { try body(index, $0) } }
                outcomes.withLock { $0[index] = outcome }
            }
            while writes.counts.queued < index + 1, ContinuousClock.now < deadline { usleep(200) }
        }
        #expect(writes.counts.queued == queued)
        release.signal()
        group.wait()
        return outcomes.withLock { $0 }
    }

    private func values(_ store: LeakStore) throws -> Set<String> {
        var values: Set<String> = []
        try store.read { try $0.query("SELECT v FROM t") { values.insert($0.string(at: 0) ?? "") } }
        return values
    }

    @Test func writesQueuedTogetherCommitInOneTransactionAndEachFailsAlone() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        let before = writes.counts.transactions
        let outcomes = try writesQueuedBehindOne(writes, store, queued: 7) { index, writer in
            let db = writer.connection
            let id = try db.scalarInt("INSERT INTO t (v) VALUES (?) RETURNING id", [.text("w\(index)")]) ?? 0
            // One write refuses after it has inserted; one breaks a constraint.
            if index == 3 { throw Refused(index: index) }
            if index == 5 { try db.run("INSERT INTO t (v) VALUES ('first')") }
            return id
        }
        // The held write alone, then the seven that queued behind it together.
        #expect(writes.counts.transactions - before == 2)
        #expect(try values(store) == ["first", "w0", "w1", "w2", "w4", "w6"])
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM t") } == 6)
        for index in [0, 1, 2, 4, 6] {
            let id = try #require(try outcomes[index]?.get())
            #expect(try store.read { try $0.scalarText("SELECT v FROM t WHERE id = ?", [.integer(id)]) } == "w\(index)")
        }
        #expect(throws: Refused(index: 3)) { try outcomes[3]?.get() }
        #expect(throws: SQLiteError.self) { try outcomes[5]?.get() }
    }

    /// When the engine drops the shared transaction, each write runs again alone: the others
    /// commit once each, and only the write that dropped it fails.
    @Test func aBatchTheEngineGivesUpRunsEachWriteAgainAlone() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        let runs = Shared<[Int: Int]>([:])
        let before = writes.counts.transactions
        let outcomes = try writesQueuedBehindOne(writes, store, queued: 4) { index, writer in
            runs.withLock { $0[index, default: 0] += 1 }
            let db = writer.connection
            let id = try db.scalarInt("INSERT INTO t (v) VALUES (?) RETURNING id", [.text("w\(index)")]) ?? 0
            if index == 1 {
                // What SQLite does by itself after some errors (a full disk, an I/O error).
                try db.execute("ROLLBACK")
                throw Refused(index: index)
            }
            return id
        }
        #expect(try values(store) == ["first", "w0", "w2", "w3"])
        // Those taken before it in the batch ran twice, those after it once.
        let counts = runs.withLock { $0 }
        #expect(counts[1] == 2)
        #expect(counts.keys.sorted() == [0, 1, 2, 3] && counts.values.allSatisfy { $0 == 1 || $0 == 2 })
        // The held write, the shared one given up, and the four alone.
        #expect(writes.counts.transactions - before == 6)
        #expect(throws: Refused(index: 1)) { try outcomes[1]?.get() }
        for index in [0, 2, 3] { #expect(throws: Never.self) { try outcomes[index]?.get() } }
    }

    /// A write costlier than `StoreTuning.sharedWriteLimit` (a slice of a big run) goes in
    /// a transaction of its own, so that a small write never waits for one queued behind it;
    /// writes up to that share one, `StoreTuning.checksPerTransaction` checks' worth at most.
    @Test func aBigWriteGoesInATransactionOfItsOwnAndUploadsShareUpToTheLimit() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        let shared = StoreTuning.sharedWriteLimit
        // How many uploads of the biggest shared size fit beside a small one.
        let fit = (StoreTuning.checksPerTransaction - 10) / shared
        #expect(fit >= 2 && fit + 2 <= StoreTuning.writesPerTransaction)
        let costs = [10, shared + 1, 10] + Array(repeating: shared, count: fit + 1)
        let before = writes.counts.transactions
        let outcomes = try writesQueuedBehindOne(writes, store, queued: costs.count, costs: costs) { index, writer in
            try writer.connection.scalarInt("INSERT INTO t (v) VALUES (?) RETURNING id", [.text("w\(index)")]) ?? 0
        }
        // The held write; the first small one (the big one behind it does not join); the big one
        // alone; the second small one with the `fit` uploads after it; the upload past the limit.
        #expect(writes.counts.transactions - before == 5)
        #expect(outcomes.count == costs.count && outcomes.values.allSatisfy { (try? $0.get()) != nil })
        #expect(try values(store) == Set(["first"] + costs.indices.map { "w\($0)" }))
    }

    /// Small writes (a CI shard's upload) queued behind costlier ones commit first, in a
    /// transaction of their own; the costlier ones follow in the next, whatever is queued by then.
    @Test func smallWritesQueuedBehindCostlierOnesCommitFirst() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        let upload = StoreTuning.sharedWriteLimit, small = StoreTuning.smallWriteLimit
        let costs = [upload, upload, small, upload, 1]
        let before = writes.counts.transactions
        let outcomes = try writesQueuedBehindOne(writes, store, queued: costs.count, costs: costs) { index, writer in
            try writer.connection.scalarInt("INSERT INTO t (v) VALUES (?) RETURNING id", [.text("w\(index)")]) ?? 0
        }
        let ids = try costs.indices.map { try #require(try outcomes[$0]?.get()) }
        // The held write; the two small ones; the three uploads together.
        #expect(writes.counts.transactions - before == 3)
        #expect(max(ids[2], ids[4]) < min(ids[0], ids[1], ids[3]))
        #expect(ids[0] < ids[1] && ids[1] < ids[3] && ids[2] < ids[4])
    }

    /// Every write runs on the one writer thread, none on its caller's; a detached write's
    /// caller goes on at once, and hears its outcome once its transaction has committed (a
    /// reader sees the row by then), or the error that failed it alone.
    @Test func writesRunOnTheWriterThreadAndADetachedOneIsAnsweredOnceCommitted() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        let callers = Shared<[Int: pthread_t]>([:]), runners = Shared<[Int: pthread_t]>([:])
        let answers = Shared<[String: String]>([:])
        let answered = DispatchGroup()
        let outcomes = try writesQueuedBehindOne(writes, store, queued: 2, callers: callers) { index, writer in
            runners.withLock { $0[index] = pthread_self() }
            if index == 1 {
                // Queued while the writer is busy: the caller is not held, and each is answered apart.
                for (name, fails) in [("d-ok", false), ("d-refused", true)] {
                    answered.enter()
                    writes.detached(cost: 1, { writer in
                        try writer.connection.run("INSERT INTO t (v) VALUES (?)", [.text(name)])
                        if fails { throw Refused(index: 99) }
                    }, completion: { failure in
                        let seen = (try? store.read { try $0.scalarInt("SELECT count(*) FROM t WHERE v = ?", [.text(name)]) }) ?? -1
                        answers.withLock { $0[name] = "\(failure.map { "\($0)" } ?? "committed"), seen \(seen)" }
                        answered.leave()
                    })
                }
            }
            return try writer.connection.scalarInt("INSERT INTO t (v) VALUES (?) RETURNING id", [.text("w\(index)")]) ?? 0
        }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        #expect(outcomes.values.allSatisfy { (try? $0.get()) != nil })
        let ran = runners.withLock { $0 }, asked = callers.withLock { $0 }
        let writer = try #require(ran[0])
        #expect(ran.values.allSatisfy { pthread_equal($0, writer) != 0 })
        #expect(asked.values.allSatisfy { pthread_equal($0, writer) == 0 })
        #expect(answers.withLock { $0 } == ["d-ok": "committed, seen 1", "d-refused": "Refused(index: 99), seen 0"])
        #expect(try values(store) == ["first", "w0", "w1", "d-ok"])
    }

    /// A detached write's caller waits for room while the writes queued cost more than
    /// `StoreTuning.detachedCostLimit` with it; a write over the limit goes when the queue is empty.
    @Test func aDetachedWriteWaitsForRoomInAFullQueue() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        let limit = StoreTuning.detachedCostLimit
        let returned = Shared<[Int]>([]), committed = DispatchGroup(), callersDone = DispatchGroup()
        let whileBusy = Shared<(returned: [Int], queued: Int)>(([], 0))
        _ = try writesQueuedBehindOne(writes, store, queued: 1) { index, writer in
            // The writer is busy with this batch: the queue fills behind it.
            let started = DispatchSemaphore(value: 0)
            for (second, cost) in [(0, limit), (1, 1)] {
                committed.enter()
                callersDone.enter()
                Thread {
                    started.signal()
                    writes.detached(cost: cost, { writer in
                        try writer.connection.run("INSERT INTO t (v) VALUES (?)", [.text("d\(second)")])
                    }, completion: { _ in committed.leave() })
                    returned.withLock { $0.append(second) }
                    callersDone.leave()
                }.start()
                started.wait()
                let deadline = ContinuousClock.now + .seconds(10)
                while second == 0, returned.withLock({ $0.isEmpty }), ContinuousClock.now < deadline { usleep(200) }
            }
            usleep(50_000)
            // Seen here, on the writer thread; expected below, on the test's.
            whileBusy.withLock { $0 = (returned.withLock { $0 }, writes.counts.queued) }
            return try writer.connection.scalarInt("INSERT INTO t (v) VALUES (?) RETURNING id", [.text("w\(index)")]) ?? 0
        }
        // The first went in; the second waited for the first to be taken off the queue.
        #expect(whileBusy.withLock { $0.returned } == [0])
        #expect(whileBusy.withLock { $0.queued } == 1)
        #expect(committed.wait(timeout: .now() + 10) == .success)
        // A caller returns after its write's completion may have run: wait for both callers.
        #expect(callersDone.wait(timeout: .now() + 10) == .success)
        #expect(returned.withLock { $0 } == [0, 1])
        #expect(try values(store) == ["first", "w0", "d0", "d1"])
    }

    /// A small write never goes first twice in a row: a costlier write waits for one transaction
    /// of small writes at most, also while more small ones keep arriving.
    @Test func aCostlierWriteWaitsForOneTransactionOfSmallWritesAtMost() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        let order = Shared<[Int]>([])
        let late = DispatchGroup()
        let costs = [StoreTuning.sharedWriteLimit + 1, 1, 1]
        let before = writes.counts.transactions
        _ = try writesQueuedBehindOne(writes, store, queued: costs.count, costs: costs) { index, writer in
            order.withLock { $0.append(index) }
            if index == 1 {
                // Another small write arrives while the small ones run, and queues behind the costly one.
                let queuedBefore = writes.counts.queued
                late.enter()
                Thread {
                    _ = try? store.write(cost: 1) { _ in order.withLock { $0.append(99) } }
                    late.leave()
                }.start()
                let deadline = ContinuousClock.now + .seconds(10)
                while writes.counts.queued <= queuedBefore, ContinuousClock.now < deadline { usleep(200) }
            }
            return try writer.connection.scalarInt("INSERT INTO t (v) VALUES (?) RETURNING id", [.text("w\(index)")]) ?? 0
        }
        late.wait()
        // The held write; the two small ones; the costly one alone; the late small one.
        #expect(order.withLock { $0 } == [1, 2, 0, 99])
        #expect(writes.counts.transactions - before == 4)
    }

    /// The savepoints' journals stay in memory (SQLite moved each past 64 KiB to a temporary
    /// file, created, written and unlinked every few uploads), and the writer's page cache holds
    /// the newest pages of a few thousand keys' states (2 MiB by default).
    @Test func theWriterKeepsSavepointJournalsInMemoryAndAPageCacheForCIUploads() throws {
        let (database, store, _) = try store()
        defer { withExtendedLifetime(database) {} }
        let (tempStore, cacheSize) = try store.write {
            (try $0.connection.scalarInt("PRAGMA temp_store"), try $0.connection.scalarInt("PRAGMA cache_size"))
        }
        #expect(tempStore == 2)  // MEMORY
        #expect(cacheSize == -Int64(StoreTuning.writerCacheKiB))
    }

    /// A full disk inside a shared transaction fails the write that filled it, not the others.
    @Test func aFullDiskFailsOnlyTheWriteThatFilledIt() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        let pages = try store.write { try $0.connection.scalarInt("PRAGMA page_count") } ?? 0
        try store.write { _ = try $0.connection.scalarInt("PRAGMA max_page_count = \(pages + 8)") }
        let outcomes = try writesQueuedBehindOne(writes, store, queued: 3) { index, writer in
            let note: SQLValue = index == 1 ? .text(String(repeating: "x", count: 200_000)) : .null
            return try writer.connection.scalarInt("INSERT INTO t (v, note) VALUES (?, ?) RETURNING id", [.text("w\(index)"), note]) ?? 0
        }
        #expect(try values(store) == ["first", "w0", "w2"])
        let failure = #expect(throws: LeakStoreError.self) { try outcomes[1]?.get() }
        #expect(failure.map { if case .full = $0 { true } else { false } } == true)
    }

    /// The shutdown checkpoint waits for the writes before it and runs outside any transaction.
    @Test func anExclusiveCallRunsOutsideAnyTransaction() throws {
        let (database, store, writes) = try store()
        defer { withExtendedLifetime(database) {} }
        try store.write { try $0.connection.run("INSERT INTO t (v) VALUES ('x')") }
        let inTransaction = try writes.exclusive { $0.inTransaction }
        #expect(!inTransaction)
        try store.close()
        #expect(try values(store) == ["x"])
    }
}
