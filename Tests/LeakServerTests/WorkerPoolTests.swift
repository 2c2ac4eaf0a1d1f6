import Foundation
@testable import LeakServer
import LeakStore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The pool that runs handlers, and the time budget that bounds each read.
@Suite("Worker pool and query budget")
struct WorkerPoolTests {
    @Test func aBusyClientCannotHoldEveryWorkerNorQueueWithoutBound() throws {
        let pool = WorkerPool(limits: .init(workers: 2, queueLimit: 100, perClientRunning: 1, perClientQueued: 2))
        pool.start()
        defer { pool.stop() }
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        // Client 1 blocks one worker and queues two more jobs; a third is refused.
        #expect(pool.submit(client: .test(1)) { started.signal(); release.wait() } == nil)
        started.wait()
        for _ in 0..<2 {
            #expect(pool.submit(client: .test(1)) { release.wait() } == nil)
        }
        #expect(pool.submit(client: .test(1)) {} == .clientBusy)
        // Client 2 is served by the other worker while client 1's jobs wait their turn.
        let served = DispatchSemaphore(value: 0)
        #expect(pool.submit(client: .test(2)) { served.signal() } == nil)
        #expect(served.wait(timeout: .now() + 10) == .success)
        for _ in 0..<3 { release.signal() }
    }

    /// A job that waited past the bound is given up: its `expired` runs instead, so that its client
    /// is answered (503 with Retry-After) rather than left waiting.
    @Test func aJobThatWaitedTooLongIsGivenUp() throws {
        let pool = WorkerPool(limits: .init(workers: 1, queueLimit: 10, perClientRunning: 1, perClientQueued: 10,
                                            queueWait: .milliseconds(100)))
        pool.start()
        defer { pool.stop() }
        let release = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        #expect(pool.submit(client: .test(1)) { started.signal(); release.wait() } == nil)
        started.wait()
        let ran = Collected<String>()
        let done = DispatchSemaphore(value: 0)
        #expect(pool.submit(client: .test(2), expired: { ran.append("expired"); done.signal() }) {
            ran.append("job")
            done.signal()
        } == nil)
        // The only worker is held past the bound.
        Thread.sleep(forTimeInterval: 0.3)
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(ran.values == ["expired"])
    }

    /// Idle workers are woken for the jobs they may take, not all at once: every job of many
    /// clients submitting from many threads at once still runs, none is left waiting for a
    /// wake-up that went to the wrong worker.
    @Test func everyJobOfManyClientsSubmittingAtOnceRuns() throws {
        let pool = WorkerPool(limits: .init(workers: 4, queueLimit: 10_000, perClientRunning: 2, perClientQueued: 1_000))
        pool.start()
        defer { pool.stop() }
        let done = DispatchSemaphore(value: 0)
        let (clients, jobsEach) = (40, 25)
        DispatchQueue.concurrentPerform(iterations: clients) { client in
            for _ in 0..<jobsEach {
                #expect(pool.submit(client: .test(client)) { done.signal() } == nil)
            }
        }
        for _ in 0..<(clients * jobsEach) {
            #expect(done.wait(timeout: .now() + 10) == .success)
        }
        #expect(pool.depth.queued == 0)
    }

    /// One job for each of clients 0..<`clients`, each signalling `started` when it starts and
    /// waiting for `release`.
    private func blockingJobs(on pool: WorkerPool, clients: Int, writes: Bool = false)
        -> (started: DispatchSemaphore, release: DispatchSemaphore) {
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        for client in 0..<clients {
            #expect(pool.submit(client: .test(client), writes: writes) { started.signal(); release.wait() } == nil)
        }
        return (started, release)
    }

    /// As many jobs run at once as there are idle workers and clients to run them: every
    /// ordinary worker is woken when that many clients each queue a job that waits for the others.
    @Test func everyOrdinaryWorkerIsWokenWhenThereIsWorkForIt() throws {
        let workers = 4
        let pool = WorkerPool(limits: .init(workers: workers, queueLimit: 100, perClientRunning: 1, perClientQueued: 10))
        pool.start()
        defer { pool.stop() }
        let (started, release) = blockingJobs(on: pool, clients: workers)
        for _ in 0..<workers {
            #expect(started.wait(timeout: .now() + 10) == .success)
        }
        #expect(pool.depth.running == workers)
        for _ in 0..<workers { release.signal() }
    }

    /// A quarter of the ordinary workers never start a write: with every other one held by a
    /// write (uploads waiting for the database writer), a read still finds a worker, and the
    /// write beyond them starts when one of them ends.
    @Test func aQuarterOfTheWorkersIsKeptForReadsWhileWritesHoldTheRest() throws {
        let workers = 4
        let pool = WorkerPool(limits: .init(workers: workers, queueLimit: 100, perClientRunning: 1, perClientQueued: 10))
        pool.start()
        defer { pool.stop() }
        let (started, release) = blockingJobs(on: pool, clients: workers, writes: true)
        let writers = workers - WorkerPool.readReserve(workers)
        for _ in 0..<writers { #expect(started.wait(timeout: .now() + 10) == .success) }
        #expect(started.wait(timeout: .now() + 0.3) == .timedOut, "a write took the worker kept for reads")
        let read = DispatchSemaphore(value: 0)
        #expect(pool.submit(client: .test(workers + 1)) { read.signal() } == nil)
        #expect(read.wait(timeout: .now() + 10) == .success)
        release.signal()
        #expect(started.wait(timeout: .now() + 10) == .success)
        for _ in 0..<workers { release.signal() }
    }

    /// Which requests count as big writes, from their head: not a read, with a body over 8 KiB
    /// or of a length not given.
    @Test func bigWritesAreToldByMethodAndBodyLength() {
        func head(_ method: String, _ headers: [String: String], body: Bool = true) -> MicroHTTPDServer.Head {
            MicroHTTPDServer.Head(method: method, rawURI: "/", path: "/", query: [:], headers: headers, client: ClientAddress("127.0.0.1")!,
                                  key: .test(1), hasBody: body)
        }
        let big = String(MicroHTTPDServer.Head.bigWriteBytes + 1), small = "3000"
        #expect(head("POST", ["content-length": big]).writesMuch)
        #expect(head("POST", ["transfer-encoding": "chunked"]).writesMuch)
        #expect(!head("POST", ["content-length": small]).writesMuch)
        #expect(!head("DELETE", [:], body: false).writesMuch)
        #expect(!head("GET", ["content-length": big]).writesMuch)
    }

    /// A job left to the background workers (its client turned heavy while it waited) is taken by
    /// one of them when an ordinary worker, which may not take it, finishes the job before it.
    @Test func aHeavyClientsWaitingJobIsTakenByABackgroundWorker() throws {
        let pool = WorkerPool(limits: .init(workers: 2, queueLimit: 100, perClientRunning: 2, perClientQueued: 10))
        pool.start()
        defer { pool.stop() }
        let started = DispatchSemaphore(value: 0)
        // Two jobs of a second each: two worker-seconds, past the one and a half that makes a client heavy.
        for _ in 0..<2 {
            #expect(pool.submit(client: .test(7)) { started.signal(); Thread.sleep(forTimeInterval: 1) } == nil)
        }
        for _ in 0..<2 { #expect(started.wait(timeout: .now() + 10) == .success) }
        let ranAt = NiceValue()
        let third = DispatchSemaphore(value: 0)
        #expect(pool.submit(client: .test(7)) {
            // A background worker runs at nice 19 (the nice value is per thread on Linux).
            ranAt.value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            third.signal()
        } == nil)
        #expect(third.wait(timeout: .now() + 10) == .success)
        #expect(ranAt.value == 19)
    }

    @Test func aReadPastItsBudgetIsInterruptedAndAnswered503() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try LeakStore(path: directory.appendingPathComponent("b.sqlite").path,
                                  options: StoreOptions(queryTimeBudget: .milliseconds(50)))
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
        do {
            _ = try store.read { try $0.scalarInt(endless) }
            Issue.record("an endless query finished")
        } catch let error as LeakStoreError {
            guard case .queryTimeout = error else { throw error }
            #expect(error.status == 503)
            #expect(error.code == "query_timeout")
        }
        // The reader is usable again for the next request.
        #expect(try store.read { try $0.scalarInt("SELECT 1") } == 1)
    }
}

/// The nice value of the thread a job ran on, written before the job signals and read after the wait.
private final class NiceValue: @unchecked Sendable {
    var value: Int32?
}

extension ClientKey {
    /// Client `number` of a test: 10.0.x.y.
    static func test(_ number: Int) -> ClientKey {
        .address(ClientAddress(bytes: [10, 0, UInt8(number / 256), UInt8(number % 256)])!)
    }
}
