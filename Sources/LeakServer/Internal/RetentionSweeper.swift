import Foundation
import LeakStore
import Synchronization

/// A background thread that, once at start-up and then every `interval`, removes the uploads a
/// server left half-stored when it died (`LeakStorage.removeAbandonedUploads`: those older than
/// `abandonedAfter`, which no live upload can be), and, with retention (`retentionDays`), drops
/// the full records of runs older than the setting, a small batch per write transaction with a
/// pause between batches, so that uploads never wait for more than one batch. The per-key states
/// stay (`LeakStorage.dropDetails`).
final class RetentionSweeper: Sendable {
    let store: any LeakStorage
    /// Retention in days; nil to keep every record.
    let days: Int?
    let abandonedAfter: Duration
    let interval: Duration
    /// Runs per batch, and the pause after each.
    let batchRuns: Int
    let pause: Duration
    /// Now, as the sweeper sees it (tests move it forward).
    let now: @Sendable () -> Date
    private let wake = DispatchSemaphore(value: 0)
    private let state = Mutex(State())

    private struct State {
        var stopped = false
        var sweeps = 0
    }

    init(store: any LeakStorage, days: Int?, abandonedAfter: Duration = .seconds(600), interval: Duration = .seconds(3_600),
         batchRuns: Int = 20, pause: Duration = .milliseconds(20), now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.days = days
        self.abandonedAfter = abandonedAfter
        self.interval = interval
        self.batchRuns = batchRuns
        self.pause = pause
        self.now = now
    }

    /// Sweeps finished so far.
    var sweeps: Int { state.withLock { $0.sweeps } }

    func start() {
        let thread = Thread { [self] in
            while !state.withLock({ $0.stopped }) {
                sweep()
                state.withLock { $0.sweeps += 1 }
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(interval / .nanoseconds(1))))
            }
        }
        thread.name = "leakhistory.retention"
        thread.start()
    }

    func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    /// One pass: the abandoned uploads, then every run older than the retention setting.
    func sweep() {
        do {
            let removed = try store.removeAbandonedUploads(
                receivedBefore: now().addingTimeInterval(-Double(abandonedAfter / .milliseconds(1)) / 1_000))
            if removed > 0 { RequestLog.note("removed \(removed) uploads left half-stored by a server that stopped") }
        } catch {
            RequestLog.problem("removing abandoned uploads failed (\(error)); the next sweep tries again")
        }
        guard let days else { return }
        let cutoff = now().addingTimeInterval(-Double(days) * 86_400)
        var after: Int64 = 0
        var total = (runs: 0, deleted: 0, stripped: 0)
        do {
            while !state.withLock({ $0.stopped }) {
                let batch = try store.dropDetails(receivedBefore: cutoff, runs: batchRuns, afterRunID: after)
                guard let last = batch.lastRunID else { break }
                after = last
                total.runs += batch.runs
                total.deleted += batch.deleted
                total.stripped += batch.stripped
                Thread.sleep(forTimeInterval: Double(pause / .milliseconds(1)) / 1_000)
            }
            if total.runs > 0 {
                RequestLog.note("retention: dropped the check records of \(total.runs) runs older than \(days) days "
                    + "(\(total.deleted) deleted, \(total.stripped) stripped); the space is reused by new uploads")
            }
        } catch {
            RequestLog.problem("retention: a batch failed (\(error)); the next sweep tries again")
        }
    }
}
