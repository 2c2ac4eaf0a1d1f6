import Foundation
import LeakReport

/// The uploader's bookkeeping, owned by its lock: the findings not yet in a run, the runs not yet
/// acknowledged (oldest first; the first may be on its way), and the retry schedule. Plain data:
/// encoding, files and the network stay outside the lock.
struct UploadQueue {
    /// A run waiting for the server: its body in memory, or in a spool file.
    struct Run {
        let key: String
        var body: Data?
        var file: URL?
        /// Checks it holds (0 for a run found in the spool, whose count is in its body).
        let checks: Int
    }

    var pending: [CheckRecord] = []
    /// Checks taken out of `pending` for a run that is being encoded (or spooled) outside the
    /// lock: still in memory, so still counted against `maxQueuedChecks` until `place` is called.
    var checksBeingCut = 0
    /// When the first of `pending` came (uptime nanoseconds).
    var pendingSince: UInt64?
    var runs: [Run] = []
    var sending = false
    var failuresInARow = 0
    /// Uptime nanoseconds before which nothing is sent (after a failure).
    var retryAt: UInt64 = 0
    var sequence = 0
    var statistics = LeakUploader.Statistics()

    /// Checks held in memory: waiting for a run, or in a run that has no spool file.
    var checksInMemory: Int {
        pending.count + checksBeingCut + runs.reduce(0) { $0 + ($1.file == nil ? $1.checks : 0) }
    }

    var spooledRuns: Int { runs.reduce(0) { $0 + ($1.file == nil ? 0 : 1) } }

    var isIdle: Bool { pending.isEmpty && checksBeingCut == 0 && runs.isEmpty && !sending }

    /// What the worker must do after a check came in.
    enum Wake: Equatable {
        case nothing
        case now
        case after(seconds: Double)
    }

    mutating func add(_ check: CheckRecord, now: UInt64, configuration: LeakUploader.Configuration) -> Wake {
        guard checksInMemory < configuration.maxQueuedChecks else {
            statistics.dropped += 1
            return .nothing
        }
        pending.append(check)
        if pending.count >= configuration.checksPerRun { return .now }
        guard pendingSince == nil else { return .nothing }
        pendingSince = now
        return .after(seconds: configuration.sendAfter)
    }

    /// The checks of the next run, when one is due: a full batch, one that waited `sendAfter`,
    /// or any at all when `flushing`.
    mutating func takeDueBatch(now: UInt64, flushing: Bool, configuration: LeakUploader.Configuration) -> [CheckRecord]? {
        guard let since = pendingSince, !pending.isEmpty else { return nil }
        let waited = Double(now &- since) / 1e9
        guard flushing || pending.count >= configuration.checksPerRun || waited >= configuration.sendAfter else { return nil }
        let batch = Array(pending.prefix(configuration.checksPerRun))
        pending.removeFirst(batch.count)
        checksBeingCut += batch.count
        pendingSince = pending.isEmpty ? nil : now
        return batch
    }

    /// A batch cut by `takeDueBatch` became `run` (queued last), or was dropped (nil).
    mutating func place(_ run: Run?, cutChecks: Int) {
        checksBeingCut -= cutChecks
        if let run { runs.append(run) } else { statistics.dropped += cutChecks }
    }

    /// The run to send now, if none is on its way and no retry is waiting.
    mutating func nextToSend(now: UInt64) -> Run? {
        guard !sending, now >= retryAt, let run = runs.first else { return nil }
        sending = true
        return run
    }

    /// The first run reached the server (or was refused for good): it leaves the queue.
    mutating func finished(accepted: Bool) -> Run? {
        sending = false
        guard !runs.isEmpty else { return nil }
        let run = runs.removeFirst()
        failuresInARow = 0
        retryAt = 0
        if accepted {
            statistics.sentRuns += 1
            statistics.sentChecks += run.checks
        } else {
            statistics.rejectedRuns += 1
        }
        return run
    }

    /// The first run did not reach the server: it stays first; returns the seconds to wait.
    mutating func failed(now: UInt64, retryAfter: Double?, configuration: LeakUploader.Configuration) -> Double {
        sending = false
        failuresInARow += 1
        statistics.failedAttempts += 1
        let doubled = configuration.firstRetryDelay * pow(2, Double(min(failuresInARow - 1, 30)))
        let delay = max(min(doubled, configuration.maxRetryDelay), min(retryAfter ?? 0, 86_400))
        retryAt = now + UInt64(delay * 1e9)
        return delay
    }
}
