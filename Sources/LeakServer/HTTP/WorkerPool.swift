import Foundation

/// The threads that run request handlers, so that libmicrohttpd's I/O threads only move bytes.
///
/// Jobs are queued per client (its IP address) and taken round-robin across clients, and one
/// client runs at most `perClientRunning` jobs at once: a client looping a slow page keeps a
/// couple of workers busy, never all of them, and everyone else's requests are taken in turn.
/// The queue is bounded in total and per client; `submit` refuses a job beyond either bound, and
/// the caller answers 503 with `Retry-After`.
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

    /// Starts the threads; each holds the pool until `stop()` ends it.
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard live == 0, !stopping else { return }
        for index in 0..<max(1, limits.workers) {
            let thread = Thread { self.work() }
            thread.name = "leakhistory-worker-\(index)"
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
        if waiting == 0 { ring.append(client) }
        queues[client, default: []].append(job)
        queued += 1
        condition.signal()
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

    private func work() {
        condition.lock()
        while true {
            if let (client, job) = takeNext() {
                active += 1
                running[client, default: 0] += 1
                condition.unlock()
                job()
                condition.lock()
                active -= 1
                running[client, default: 1] -= 1
                if running[client] == 0 { running[client] = nil }
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

    /// The next job of the first client in turn that is under its running cap. Lock held.
    private func takeNext() -> (UInt32, Job)? {
        for (position, client) in ring.enumerated() where running[client, default: 0] < limits.perClientRunning {
            var jobs = queues[client] ?? []
            let job = jobs.removeFirst()
            queued -= 1
            ring.remove(at: position)
            if jobs.isEmpty {
                queues[client] = nil
            } else {
                queues[client] = jobs
                ring.append(client)
            }
            return (client, job)
        }
        return nil
    }
}
