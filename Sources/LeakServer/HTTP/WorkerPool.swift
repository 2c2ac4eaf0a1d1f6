import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The threads that run request handlers, so that libmicrohttpd's I/O threads only move bytes.
///
/// Jobs are queued per client (its IP address). A free worker takes the next job of the client
/// that has used the workers least lately (worker-seconds, decaying over a second or so), and
/// one client runs at most `perClientRunning` jobs at once. Clients that kept more than one
/// worker busy on average lately are *heavy*: their jobs run only on background workers, at the
/// lowest CPU priority (nice 19), three for every four ordinary ones. A flood of slow pages from
/// many addresses then slows itself, not a client sending one request at a time. The queue is
/// bounded in total and per client; `submit` refuses a job beyond either bound, and the caller
/// answers 503 with `Retry-After`.
final class WorkerPool: @unchecked Sendable {
    struct Limits: Sendable {
        var workers: Int
        /// Jobs waiting (not running) across all clients.
        var queueLimit: Int
        var perClientRunning: Int
        /// Jobs waiting for one client.
        var perClientQueued: Int
    }

    enum Refusal: Error, Equatable {
        /// Every worker is busy and the queue is full.
        case full
        /// This client already has as many jobs waiting as it may.
        case clientBusy
        case stopped
    }

    typealias Job = @Sendable () -> Void

    private let limits: Limits
    // NSCondition guards everything below; the type is @unchecked Sendable for that reason.
    private let condition = NSCondition()
    private var queues: [UInt32: [Job]] = [:]
    private var running: [UInt32: Int] = [:]
    /// Per client: decayed worker-seconds of finished jobs, when last decayed, and the start
    /// times of its running jobs.
    private var usage: [UInt32: (seconds: Double, at: ContinuousClock.Instant)] = [:]
    private var started: [UInt32: [ContinuousClock.Instant]] = [:]
    /// Seconds over which usage decays (by 1/e).
    private let decay = 1.5
    /// Clients with queued jobs, in the order they are served.
    private var ring: [UInt32] = []
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

    /// Starts the threads; each holds the pool until `stop()` ends it.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard live == 0, !stopping else { return }
        let ordinary = max(1, limits.workers)
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
    /// so that the job's resume cannot come first.
    func submit(client: UInt32, accepted: () -> Void = {}, _ job: @escaping Job) -> Refusal? {
        condition.lock()
        defer { condition.unlock() }
        if stopping { return .stopped }
        let waiting = queues[client]?.count ?? 0
        if waiting >= limits.perClientQueued { return .clientBusy }
        if queued >= limits.queueLimit { return .full }
        accepted()
        if waiting == 0 { ring.append(client) }  // the set of clients with jobs waiting
        queues[client, default: []].append(job)
        queued += 1
        // Every worker: only the ordinary or only the background ones may take this job.
        condition.broadcast()
        return nil
    }

    /// Jobs waiting and running, for `/metrics`.
    var depth: (queued: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queued, active)
    }

    /// Refuses new jobs, lets the queued and running ones finish, and ends the threads.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while live > 0 { condition.wait() }
        condition.unlock()
    }

    private func work(background: Bool) {
        condition.lock()
        while true {
            if let (client, job, _) = takeNext(heavy: background) {
                let start = ContinuousClock.now
                active += 1
                running[client, default: 0] += 1
                started[client, default: []].append(start)
                condition.unlock()
                job()
                condition.lock()
                let end = ContinuousClock.now
                active -= 1
                running[client, default: 1] -= 1
                if running[client] == 0 { running[client] = nil }
                if var starts = started[client], let position = starts.firstIndex(of: start) {
                    starts.remove(at: position)
                    started[client] = starts.isEmpty ? nil : starts
                }
                usage[client] = (decayed(client, at: end) + seconds(end - start), end)
                if usage.count > 4_096 { usage = usage.filter { decayed($0.key, at: end) > 0.01 } }
                // A client at its cap may have jobs waiting that are now eligible; stop() waits too.
                condition.broadcast()
            } else if stopping && queued == 0 {
                live -= 1
                condition.broadcast()
                condition.unlock()
                return
            } else {
                condition.wait()
            }
        }
    }

    /// The next job, for an ordinary worker (`heavy` false) or a background one: of the
    /// waiting client under its running cap that has used the workers least, among the light
    /// clients or the heavy ones. Lock held.
    private func takeNext(heavy: Bool) -> (UInt32, Job, Bool)? {
        let now = ContinuousClock.now
        var best: (position: Int, load: Double)?
        for (position, client) in ring.enumerated() where running[client, default: 0] < limits.perClientRunning {
            let load = self.load(client, at: now)
            guard (load > decay) == heavy else { continue }
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
        return (client, job, heavy)
    }

    /// Worker-seconds `client` used lately: finished jobs, decayed, plus the time its running
    /// jobs have taken so far. Above `decay` (one worker kept busy), the client is heavy.
    private func load(_ client: UInt32, at now: ContinuousClock.Instant) -> Double {
        decayed(client, at: now) + (started[client] ?? []).reduce(0) { $0 + min(decay, seconds(now - $1)) }
    }

    private func decayed(_ client: UInt32, at now: ContinuousClock.Instant) -> Double {
        guard let entry = usage[client] else { return 0 }
        return entry.seconds * exp(-seconds(now - entry.at) / decay)
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
