import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The threads that run request handlers, so that libmicrohttpd's I/O threads only move bytes.
///
/// Jobs are queued per client (`ClientKey`: the token it showed with its address, else its address). A free worker takes the next job of the client
/// that has used the workers least lately (worker-seconds, decaying over a second or so), and
/// one client runs at most `perClientRunning` jobs at once. Clients that kept more than one
/// worker busy on average lately are *heavy*: their jobs run only on background workers, at the
/// lowest CPU priority (nice 19), three for every four ordinary ones. A flood of slow pages from
/// many addresses then slows itself, not a client sending one request at a time. The queue is
/// bounded in total and per client; `submit` refuses a job beyond either bound, and the caller
/// answers 503 with `Retry-After`.
///
/// A quarter of the ordinary workers (`readReserve`) never start a big write (a job submitted
/// with `writes`: a request body of more than 8 KiB): those wait for the one database writer anyway,
/// and a read behind eight uploads held by it waited up to 89 ms for a worker; reads and small
/// writes (a CI shard's upload, a token) take any worker.
///
/// An idle worker waits on a semaphore of its own, and a change (a job queued, a job ended) wakes
/// only as many idle workers of each kind as there are jobs that kind may take now: a condition
/// broadcast woke all fourteen for every job, and the wake-ups cost a 10-check upload a fifth of
/// its CPU time.
final class WorkerPool: @unchecked Sendable {
    struct Limits: Sendable {
        var workers: Int
        /// Jobs waiting (not running) across all clients.
        var queueLimit: Int
        var perClientRunning: Int
        /// Jobs waiting for one client.
        var perClientQueued: Int
        /// The longest a job waits before it is given up (`submit`'s `expired`).
        var queueWait: Duration = WorkerPool.queueWaitLimit
    }

    enum Refusal: Error, Equatable {
        /// Every worker is busy and the queue is full.
        case full
        /// This client already has as many jobs waiting as it may.
        case clientBusy
        case stopped
    }

    typealias Job = @Sendable () -> Void

    /// A queued job, and whether it writes.
    private struct Queued {
        var job: Job
        var writes: Bool
        var since: ContinuousClock.Instant
        /// Run instead of `job` when it waited past `queueWaitLimit`.
        var expired: Job?
    }

    /// The longest a job waits in the queue by default before it is given up (`submit`'s
    /// `expired` runs instead): a client told to come back (503 with `Retry-After`) fares better than one whose
    /// HTTP client gives up waiting while the server still holds its request, which then runs
    /// for nobody. Well under the common client time-outs (the CLI's, curl's, a proxy's).
    static let queueWaitLimit: Duration = .seconds(20)

    private let limits: Limits
    // `lock` guards everything below; the type is @unchecked Sendable for that reason.
    private let lock = NSLock()
    /// Idle workers of each kind (`Kind.index`), each parked on its own semaphore.
    private var idle: [[DispatchSemaphore]] = [[], []]
    /// Idle workers of each kind signalled and not yet awake.
    private var waking = [0, 0]
    /// Signalled when the last worker returns.
    private let finished = DispatchSemaphore(value: 0)
    private var queues: [ClientKey: [Queued]] = [:]
    /// Writes running on ordinary workers, and how many may (`readReserve`).
    private var ordinaryWrites = 0
    private var ordinaryWriteLimit: Int { ordinaryCount - Self.readReserve(ordinaryCount) }
    private var ordinaryCount: Int { max(1, limits.workers) }
    private var running: [ClientKey: Int] = [:]
    /// Per client: decayed worker-seconds of finished jobs, when last decayed, and the start
    /// times of its running jobs.
    private var usage: [ClientKey: (seconds: Double, at: ContinuousClock.Instant)] = [:]
    private var started: [ClientKey: [ContinuousClock.Instant]] = [:]
    /// Seconds over which usage decays (by 1/e).
    private let decay = 1.5
    /// Clients with queued jobs, in the order they are served.
    private var ring: [ClientKey] = []
    private var queued = 0
    private var active = 0
    private var stopping = false
    /// Worker threads that have not returned yet.
    private var live = 0

    init(limits: Limits) {
        self.limits = limits
    }

    /// Background workers for `ordinary` ones: three for every four.
    static func backgroundCount(_ ordinary: Int) -> Int { max(1, ordinary * 3 / 4) }

    /// Ordinary workers that never start a big write: a quarter of them (none of fewer than four).
    static func readReserve(_ ordinary: Int) -> Int { ordinary / 4 }

    /// Starts the threads; each holds the pool until `stop()` ends it.
    func start() {
        lock.lock()
        defer { lock.unlock() }
        guard live == 0, !stopping else { return }
        let ordinary = ordinaryCount
        for index in 0..<(ordinary + Self.backgroundCount(ordinary)) {
            let background = index >= ordinary
            let thread = Thread {
                // Lowering its own priority needs no privilege; on Linux the nice value is per thread,
                // and `who` 0 is the calling thread.
                if background { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) }
                self.work(background: background)
            }
            thread.name = background ? "leakhistory-background-\(index - ordinary)" : "leakhistory-worker-\(index)"
            thread.stackSize = 1 << 20
            live += 1
            thread.start()
        }
    }

    /// Queues `job` for `client`, or says why not. `accepted` runs (under the pool's lock) once
    /// the job is accepted and before any worker can start it: libmicrohttpd's suspend goes there,
    /// so that the job's resume cannot come first. `writes`: the job is a big write to the
    /// database (`readReserve`).
    /// `expired`: run instead of `job` when the job waited past `Limits.queueWait` (nil: run it however long it waited).
    func submit(client: ClientKey, writes: Bool = false, accepted: () -> Void = {}, expired: Job? = nil,
                _ job: @escaping Job) -> Refusal? {
        lock.lock()
        defer { lock.unlock() }
        if stopping { return .stopped }
        let waiting = queues[client]?.count ?? 0
        if waiting >= limits.perClientQueued { return .clientBusy }
        if queued >= limits.queueLimit { return .full }
        accepted()
        if waiting == 0 { ring.append(client) }  // the set of clients with jobs waiting
        queues[client, default: []].append(Queued(job: job, writes: writes, since: .now, expired: expired))
        queued += 1
        wakeIdleWorkers()
        return nil
    }

    /// Seconds a refused client is asked to wait (`Retry-After`): one, and one more for each
    /// `retryAfterStep` jobs waiting, up to `retryAfterLimit`, so that a burst of refused
    /// clients comes back spread over roughly the time the queue takes to drain.
    var retryAfterSeconds: Int {
        let waiting = depth.queued
        return min(Self.retryAfterLimit, 1 + waiting / Self.retryAfterStep)
    }

    /// Waiting jobs that add a second to `retryAfterSeconds`: about what the workers finish in
    /// a second when each job is a CI upload waiting for the one database writer.
    static let retryAfterStep = 16
    /// The longest wait asked for: a client told more would rather give up than wait.
    static let retryAfterLimit = 30

    /// Jobs waiting and running, for `/metrics`.
    var depth: (queued: Int, running: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (queued, active)
    }

    /// Refuses new jobs, lets the queued and running ones finish, and ends the threads.
    func stop() {
        lock.lock()
        stopping = true
        wakeIdleWorkers()
        let waitForWorkers = live > 0
        lock.unlock()
        guard waitForWorkers else { return }
        finished.wait()
        // For any other caller of `stop()`.
        finished.signal()
    }

    private func work(background: Bool) {
        let kind = background ? 1 : 0
        let parking = DispatchSemaphore(value: 0)
        lock.lock()
        while true {
            let next = takeNext(heavy: background)
            // What this worker does not take, others may: a job of the other kind, a second job.
            wakeIdleWorkers()
            if let (client, queuedJob) = next {
                let start = ContinuousClock.now
                let countedWrite = !background && queuedJob.writes
                if countedWrite { ordinaryWrites += 1 }
                active += 1
                running[client, default: 0] += 1
                started[client, default: []].append(start)
                lock.unlock()
                if let expired = queuedJob.expired, start - queuedJob.since > limits.queueWait {
                    expired()
                } else {
                    queuedJob.job()
                }
                lock.lock()
                let end = ContinuousClock.now
                if countedWrite { ordinaryWrites -= 1 }
                active -= 1
                running[client, default: 1] -= 1
                if running[client] == 0 { running[client] = nil }
                if var starts = started[client], let position = starts.firstIndex(of: start) {
                    starts.remove(at: position)
                    started[client] = starts.isEmpty ? nil : starts
                }
                usage[client] = (decayed(client, at: end) + seconds(end - start), end)
                if usage.count > 4_096 { usage = usage.filter { decayed($0.key, at: end) > 0.01 } }
                // Round the loop: the next job is taken, and whoever may take what is left is woken.
            } else if stopping && queued == 0 {
                live -= 1
                let last = live == 0
                lock.unlock()
                if last { finished.signal() }
                return
            } else {
                idle[kind].append(parking)
                lock.unlock()
                parking.wait()
                lock.lock()
                waking[kind] -= 1
            }
        }
    }

    /// Signals as many idle workers of each kind as there are jobs that kind may take now, less
    /// those signalled already; every idle worker once the pool is stopping with nothing queued,
    /// so that it returns. Lock held.
    private func wakeIdleWorkers() {
        let now = ContinuousClock.now
        for kind in 0..<2 where !idle[kind].isEmpty {
            var wanted = stopping && queued == 0 ? idle[kind].count : takeable(heavy: kind == 1, at: now) - waking[kind]
            while wanted > 0, let worker = idle[kind].popLast() {
                waking[kind] += 1
                worker.signal()
                wanted -= 1
            }
        }
    }

    /// How many of the waiting jobs workers of one kind (`heavy`: background) may start now:
    /// those of clients of that kind, each up to its running cap. Lock held.
    private func takeable(heavy: Bool, at now: ContinuousClock.Instant) -> Int {
        ring.reduce(0) { count, client in
            let room = limits.perClientRunning - running[client, default: 0]
            guard room > 0, (load(client, at: now) > decay) == heavy, mayStart(queues[client]?.first, heavy: heavy)
            else { return count }
            return count + min(room, queues[client]?.count ?? 0)
        }
    }

    /// Whether a worker of that kind may start `job` now: an ordinary one starts a write only
    /// while fewer than `ordinaryWriteLimit` run. Lock held.
    private func mayStart(_ job: Queued?, heavy: Bool) -> Bool {
        guard let job else { return false }
        return heavy || !job.writes || ordinaryWrites < ordinaryWriteLimit
    }

    /// The next job, for an ordinary worker (`heavy` false) or a background one: of the
    /// waiting client under its running cap that has used the workers least, among the light
    /// clients or the heavy ones. Lock held.
    private func takeNext(heavy: Bool) -> (ClientKey, Queued)? {
        let now = ContinuousClock.now
        var best: (position: Int, load: Double)?
        for (position, client) in ring.enumerated() where running[client, default: 0] < limits.perClientRunning {
            let load = self.load(client, at: now)
            guard (load > decay) == heavy, mayStart(queues[client]?.first, heavy: heavy) else { continue }
            if best == nil || load < best!.load { best = (position, load) }
        }
        guard let best else { return nil }
        let client = ring.remove(at: best.position)
        var jobs = queues[client] ?? []
        let job = jobs.removeFirst()
        queued -= 1
        if jobs.isEmpty {
            queues[client] = nil
        } else {
            queues[client] = jobs
            ring.append(client)
        }
        return (client, job)
    }

    /// Worker-seconds `client` used lately: finished jobs, decayed, plus the time its running
    /// jobs have taken so far. Above `decay` (one worker kept busy), the client is heavy.
    private func load(_ client: ClientKey, at now: ContinuousClock.Instant) -> Double {
        decayed(client, at: now) + (started[client] ?? []).reduce(0) { $0 + min(decay, seconds(now - $1)) }
    }

    private func decayed(_ client: ClientKey, at now: ContinuousClock.Instant) -> Double {
        guard let entry = usage[client] else { return 0 }
        return entry.seconds * exp(-seconds(now - entry.at) / decay)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
