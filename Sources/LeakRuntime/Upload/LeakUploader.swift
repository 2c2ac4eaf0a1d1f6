import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LeakReport

/// Sends findings to a LeakHistory server from a running app or service — a debug build, a
/// staging deployment — as runs of the project's history. Off unless you make one.
///
/// ```swift
/// if let configuration = LeakUploader.Configuration() {   // LEAKHISTORY_UPLOAD=1 and the rest
///     let uploader = LeakUploader(configuration: configuration)
///     var watching = LeakWatcher.Configuration()
///     watching.upload(to: uploader)
///     LeakWatcher(configuration: watching).start()
/// }
/// ```
///
/// `record` never waits: it appends under a short lock. A worker queue batches the checks into
/// runs (`checksPerRun`, or whatever came within `sendAfter`), posts each to
/// `POST /v1/projects/{project}/runs` with the token, and retries with a doubling delay while the
/// server is away or busy; runs are idempotent by their key, so a retry never stores twice.
/// Memory is bounded by `maxQueuedChecks`; with a `spoolFolder`, runs wait on disk instead, across
/// restarts too. A run the server refuses (a 4xx other than 408 and 429: a wrong token or project)
/// is dropped and said once on standard error.
public final class LeakUploader: Sendable {
    /// What the uploader has done so far.
    public struct Statistics: Sendable, Hashable {
        public var sentRuns = 0
        public var sentChecks = 0
        /// Checks dropped because `maxQueuedChecks` (or `maxSpooledRuns`) was reached.
        public var dropped = 0
        /// Runs the server refused for good.
        public var rejectedRuns = 0
        /// Attempts that failed and were retried.
        public var failedAttempts = 0
    }

    public let configuration: Configuration
    private let queue = Locked(UploadQueue())
    private let worker = DispatchQueue(label: "LeakUploader", qos: .utility)
    private let session: URLSession
    /// The start of this uploader's run keys and spool files: the build, then what sets this
    /// process apart from others of the same build.
    private let identity: String
    private let startedAt = Date()

    public init(configuration: Configuration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = Self.requestTimeout
        session = URLSession(configuration: sessionConfiguration)
        identity = "\(configuration.build)-\(UUID().uuidString.prefix(8).lowercased())"
        worker.async { self.resumeSpooledRuns() }
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Seconds a request may take before it counts as failed and is retried.
    private static let requestTimeout: Double = 30

    /// Queues `check` for the server. Never blocks on the network or the disk.
    public func record(_ check: CheckRecord) {
        let wake = queue.withLock { $0.add(check, now: Self.uptime(), configuration: configuration) }
        switch wake {
        case .nothing: break
        case .now: worker.async { self.pump() }
        case .after(let seconds): worker.asyncAfter(deadline: .now() + seconds) { [weak self] in self?.pump() }
        }
    }

    /// Sends what is waiting now, without waiting for a full batch.
    public func flush() {
        worker.async { self.pump(flushing: true) }
    }

    /// Flushes, then waits until the server has everything or `timeout` seconds have passed:
    /// for a service shutting down, or a test. Returns whether everything was sent.
    @discardableResult
    public func drain(timeout: Double) -> Bool {
        flush()
        let deadline = Self.uptime() + UInt64(max(0, timeout) * 1e9)
        while Self.uptime() < deadline {
            if queue.withLock({ $0.isIdle }) { return true }
            Thread.sleep(forTimeInterval: Self.drainPoll)
        }
        return queue.withLock { $0.isIdle }
    }

    /// How often `drain` looks whether everything went.
    private static let drainPoll: Double = 0.005

    public var statistics: Statistics { queue.withLock { $0.statistics } }

    /// Checks waiting in memory, and runs waiting in the spool folder.
    public var waiting: (checksInMemory: Int, spooledRuns: Int) {
        queue.withLock { ($0.checksInMemory, $0.spooledRuns) }
    }

    // MARK: The worker

    /// Cuts the runs that are due, then sends the first waiting one. Worker queue only.
    private func pump(flushing: Bool = false) {
        let now = Self.uptime()
        while let batch = queue.withLock({ $0.takeDueBatch(now: now, flushing: flushing, configuration: configuration) }) {
            enqueue(batch)
        }
        guard let run = queue.withLock({ $0.nextToSend(now: now) }) else { return }
        guard let body = run.body ?? run.file.flatMap({ try? Data(contentsOf: $0) }) else {
            // A spool file another process sent and removed, or that cannot be read: nothing to send.
            _ = queue.withLock { $0.finished(accepted: false) }
            worker.async { self.pump() }
            return
        }
        send(body, key: run.key)
    }

    private func enqueue(_ batch: [CheckRecord]) {
        let sequence = queue.withLock { queue -> Int in
            queue.sequence += 1
            return queue.sequence
        }
        let key = "\(identity)-\(sequence)"
        let record = RunRecord(
            project: configuration.project, commit: configuration.commit, branch: configuration.branch,
            environment: configuration.environment, runKey: key, startedAt: startedAt,
            tool: RunRecord.Tool(name: "LeakRuntime", version: "1"), checks: batch)
        guard let body = try? JSONEncoder().encode(record) else {
            queue.withLock { $0.place(nil, cutChecks: batch.count) }
            return
        }
        var run = UploadQueue.Run(key: key, body: body, file: nil, checks: batch.count)
        if let folder = configuration.spoolFolder {
            let full = queue.withLock { $0.spooledRuns >= configuration.maxSpooledRuns }
            if full {
                queue.withLock { $0.place(nil, cutChecks: batch.count) }
                Self.warnOnce(
                    "spool", "\(folder.path) holds \(configuration.maxSpooledRuns) unsent runs (maxSpooledRuns): newer findings are dropped until the server takes them.")
                return
            }
            if let file = spool(body, named: key, in: folder) {
                run.file = file
                run.body = nil
            }
        }
        queue.withLock { $0.place(run, cutChecks: batch.count) }
    }

    /// Writes a run to the spool folder (named so that files sort oldest first), or nil if the
    /// folder cannot be written: the run then waits in memory.
    private func spool(_ body: Data, named key: String, in folder: URL) -> URL? {
        let stamp = String(Int(Date().timeIntervalSince1970 * 1000))
        let file = folder.appendingPathComponent("run-\(String(repeating: "0", count: max(0, 15 - stamp.count)))\(stamp)-\(key).json")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try body.write(to: file, options: .atomic)
            return file
        } catch {
            Self.warnOnce("spool-write", "cannot write to \(folder.path) (\(error.localizedDescription)): unsent runs wait in memory.")
            return nil
        }
    }

    /// Runs an earlier process left in the spool folder go first.
    private func resumeSpooledRuns() {
        guard let folder = configuration.spoolFolder,
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let files = names.filter { $0.hasPrefix("run-") && $0.hasSuffix(".json") }.sorted()
        let runs = files.map { UploadQueue.Run(key: $0, body: nil, file: folder.appendingPathComponent($0), checks: 0) }
        queue.withLock { $0.runs.insert(contentsOf: runs, at: 0) }
        pump()
    }

    private func send(_ body: Data, key: String) {
        var request = URLRequest(url: configuration.runsURL)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(configuration.token)", forHTTPHeaderField: "Authorization")
        let task = session.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode
            let retryAfter = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After").flatMap(Double.init)
            let answer = data.map { String(decoding: $0.prefix(Self.answerShown), as: UTF8.self) } ?? ""
            self.worker.async { self.finish(key: key, status: status, retryAfter: retryAfter, answer: answer, error: error) }
        }
        task.resume()
    }

    /// The most of a refusal's body shown on standard error.
    private static let answerShown = 500

    private func finish(key: String, status: Int?, retryAfter: Double?, answer: String, error: (any Error)?) {
        switch status {
        case .some(200...299):
            removeFile(of: queue.withLock { $0.finished(accepted: true) })
            pump()
        case .some(let status) where (400...499).contains(status) && status != 408 && status != 429:
            removeFile(of: queue.withLock { $0.finished(accepted: false) })
            Self.warnOnce(
                "refused-\(status)",
                "the server at \(configuration.server.absoluteString) refused run \(key) with \(status): \(answer) — check the token and project; the run is dropped.")
            pump()
        default:
            let delay = queue.withLock { $0.failed(now: Self.uptime(), retryAfter: retryAfter, configuration: configuration) }
            // Weakly: an uploader let go stops retrying (its spooled runs wait for the next one).
            worker.asyncAfter(deadline: .now() + delay) { [weak self] in self?.pump() }
        }
    }

    private func removeFile(of run: UploadQueue.Run?) {
        if let file = run?.file { try? FileManager.default.removeItem(at: file) }
    }

    private static func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private static let warned = Locked<Set<String>>([])

    static func warnOnce(_ topic: String, _ message: String) {
        guard warned.withLock({ $0.insert(topic).inserted }) else { return }
        warn(message)
    }

    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("LeakUploader: \(message)\n".utf8))
    }
}
