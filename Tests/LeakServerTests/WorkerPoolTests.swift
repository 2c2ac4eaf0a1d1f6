import Foundation
@testable import LeakServer
import LeakStore
import Testing

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
        #expect(pool.submit(client: 1) { started.signal(); release.wait() } == nil)
        started.wait()
        for _ in 0..<2 {
            #expect(pool.submit(client: 1) { release.wait() } == nil)
        }
        #expect(pool.submit(client: 1) {} == .clientBusy)
        // Client 2 is served by the other worker while client 1's jobs wait their turn.
        let served = DispatchSemaphore(value: 0)
        #expect(pool.submit(client: 2) { served.signal() } == nil)
        #expect(served.wait(timeout: .now() + 10) == .success)
        for _ in 0..<3 { release.signal() }
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
