import Dispatch
import Foundation
import LeakReport

/// Watches objects in a running program — a server, a debug build — and reports the ones that
/// outlive their use.
///
/// ```swift
/// let watcher = LeakWatcher(onLeak: { finding in log.warning("\(finding.record.message ?? "")") })
/// watcher.start()
/// // once a screen is closed:
/// watcher.watch(viewModel, name: "ProfileScreen")
/// ```
///
/// Every `interval` a check looks at the watched objects through weak references. An object
/// still alive at `strikes` checks in a row is a leak (the first check gives async work its
/// chance); one reported as leaked and deallocated later is a late release. Findings go to the
/// handlers and, as `CheckRecord`s with `source: .watcher`, a retain path and a fingerprint, to
/// the configured report.
///
/// Thread-safe. `watch`, `ignore` and `rewatch` only queue a request under a short lock: they
/// never wait for a check. Memory is bounded by `Configuration.maxWatched`; the watcher never
/// keeps an object alive between checks.
public final class LeakWatcher: Sendable {
    /// How a watcher checks and where it reports.
    public struct Configuration: Sendable {
        /// Seconds between periodic checks, once `start()` is called (at most a day).
        public var interval: Double
        /// Checks in a row an object must survive to be reported.
        public var strikes: Int
        /// Class names never reported, short (`ImageCache`) or module-qualified (`App.ImageCache`).
        public var allowlist: Set<String>
        public var budgets: [LeakBudget]
        /// Whether leaks get a retain path and fingerprint: one search per finding, in the check,
        /// never in `watch`. The search reads stored properties as `Mirror` does; turn it off
        /// where objects a leak reaches are mutated on other threads while checks run.
        public var findsRetainPaths: Bool
        public var retainPathLimits: RetainPathLimits
        /// Holders outside the leaked object to search when it is in no cycle: caches,
        /// containers, singletons. Asked for at each search, where the objects are looked at (`objectQueue`).
        public var retainPathRoots: (@Sendable () -> [Any])?
        /// The most objects watched and queued at once; further `watch` calls are dropped and counted.
        public var maxWatched: Int
        /// Receives every finding's record. By default the process's leak report (the one
        /// `LEAKHISTORY_REPORT` names, as for tests); `writeReport(to:)` sends them to a file of
        /// your choice, `nil` nowhere.
        public var report: (@Sendable (CheckRecord) -> Void)?
        /// Where the periodic check looks at the watched objects — loads their weak references,
        /// walks them for retain paths — and so where a last strong reference it held is released:
        /// nil for the watcher's own background queue; `.main` for UIKit and AppKit objects, which
        /// must be touched and deallocated on the main thread only. The timer, the report and the
        /// handlers stay on the background queue, which never holds a watched object.
        public var objectQueue: DispatchQueue?

        public init(
            interval: Double = 3, strikes: Int = 2, allowlist: Set<String> = [], budgets: [LeakBudget] = [],
            findsRetainPaths: Bool = true, retainPathLimits: RetainPathLimits = RetainPathLimits(),
            maxWatched: Int = 100_000, report: (@Sendable (CheckRecord) -> Void)? = Configuration.processReport
        ) {
            self.interval = min(max(0.001, interval), 86_400)
            self.strikes = max(1, strikes)
            self.allowlist = allowlist
            self.budgets = budgets
            self.findsRetainPaths = findsRetainPaths
            self.retainPathLimits = retainPathLimits
            self.retainPathRoots = nil
            self.maxWatched = max(1, maxWatched)
            self.report = report
            self.objectQueue = nil
        }

        /// Appends to the process's leak report, where test checks go too: the file or folder
        /// `LEAKHISTORY_REPORT` names, else `.build/leakhistory/` under `swift test`, else nowhere.
        public static let processReport: @Sendable (CheckRecord) -> Void = { ReportSink.record($0) }

        /// Appends each finding to `writer`; a write that fails is dropped, never thrown at a check.
        public mutating func writeReport(to writer: NDJSONWriter) {
            report = { record in try? writer.append(record) }
        }

        /// Sends each finding to `uploader` as well, after wherever `report` sends it now.
        public mutating func upload(to uploader: LeakUploader) {
            let report = self.report
            self.report = { record in
                report?(record)
                uploader.record(record)
            }
        }
    }

    public let configuration: Configuration
    private let onLeak: (@Sendable (LeakWatcherFinding) -> Void)?
    private let onLateRelease: (@Sendable (LeakWatcherFinding) -> Void)?
    /// Requests from callers, taken by the next check. Held only to append or swap.
    private let inbox = Locked(WatcherInbox())
    /// The watched objects; held for the bookkeeping part of a check only.
    private let state = Locked(WatcherState())
    private let timer = Locked<(any DispatchSourceTimer)?>(nil)
    /// The timer's queue, where findings are reported.
    private let checkingQueue = DispatchQueue(label: "LeakWatcher", qos: .utility)
    /// A periodic look waits on `objectQueue`: the next tick does not queue another.
    private let lookQueued = Locked(false)

    /// - Parameters:
    ///   - configuration: Interval, strikes, allowlist, budgets and report.
    ///   - onLeak: Called for leaks and exceeded budgets, on the watcher's background queue (for
    ///     `checkNow`, the calling thread), outside any lock.
    ///   - onLateRelease: Called when an object reported as leaked is deallocated after all.
    public init(
        configuration: Configuration = Configuration(),
        onLeak: (@Sendable (LeakWatcherFinding) -> Void)? = nil,
        onLateRelease: (@Sendable (LeakWatcherFinding) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.onLeak = onLeak
        self.onLateRelease = onLateRelease
    }

    deinit {
        timer.withLock { $0?.cancel() }
    }

    // MARK: Requests

    /// Watches `object` from now on: call it once you are done with the object.
    ///
    /// - Parameters:
    ///   - name: A scenario name for reports, and the group for `LeakBudget.group`.
    ///   - fileID, filePath, line, column: Where reports say the object was watched.
    public func watch(
        _ object: AnyObject, name: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let entry = WatchedObject(object, name: name, location: location)
        let limit = configuration.maxWatched
        inbox.withLock { inbox in
            guard inbox.requests.count + inbox.watchedCount < limit else {
                inbox.dropped += 1
                return
            }
            inbox.requests.append(.watch(entry))
        }
    }

    /// Stops watching this instance and keeps it from being reported until `rewatch(_:)`.
    public func ignore(_ object: AnyObject) {
        let reference = WeakObject(object)
        inbox.withLock { $0.requests.append(.ignore(reference)) }
    }

    /// Watches an ignored (or already reported) instance afresh: its strikes start again at zero.
    public func rewatch(
        _ object: AnyObject, name: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let entry = WatchedObject(object, name: name, location: location)
        inbox.withLock { $0.requests.append(.rewatch(entry)) }
    }

    /// Never reports instances of `type` (exactly that class, not its subclasses).
    public func ignore(type: AnyObject.Type) {
        let identifier = ObjectIdentifier(type)
        inbox.withLock { $0.requests.append(.ignoreType(identifier)) }
    }

    // MARK: Checking

    /// Starts the periodic check on a background queue. Calling it again does nothing.
    public func start() {
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: checkingQueue)
            let interval = DispatchTimeInterval.nanoseconds(Int(configuration.interval * 1_000_000_000))
            source.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
            source.setEventHandler { [weak self] in self?.periodicCheck() }
            source.activate()
            timer = source
        }
    }

    /// Stops the periodic check; watched objects stay watched.
    public func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    /// Runs one check now, on the calling thread (with an `objectQueue`, call it there), and
    /// returns what it found (already passed to the handlers and the report). Tests call this
    /// instead of waiting for the period.
    @discardableResult
    public func checkNow() -> [LeakWatcherFinding] {
        let findings = look()
        deliver(findings)
        return findings
    }

    /// A tick of the timer, on `checkingQueue`: the look at the objects on `objectQueue` when
    /// one is set, the findings (values only) handed back here.
    private func periodicCheck() {
        guard let objectQueue = configuration.objectQueue else {
            deliver(look())
            return
        }
        guard lookQueued.withLock({ queued in defer { queued = true }; return !queued }) else { return }
        objectQueue.async { [weak self] in
            guard let self else { return }
            self.lookQueued.withLock { $0 = false }
            let findings = self.look()
            guard !findings.isEmpty else { return }
            self.checkingQueue.async { self.deliver(findings) }
        }
    }

    /// The part of a check that touches the watched objects: strikes, budgets, retain paths.
    private func look() -> [LeakWatcherFinding] {
        let now = DispatchTime.now().uptimeNanoseconds
        let pending = state.withLock { state in
            // Taken under the state lock, so that concurrent checks apply requests in call order.
            let requests = inbox.withLock { inbox in
                defer { inbox.requests.removeAll() }
                return inbox.requests
            }
            state.apply(requests)
            let pending = state.check(configuration: configuration)
            inbox.withLock { $0.watchedCount = state.entries.count }
            return pending
        }
        var findings: [LeakWatcherFinding] = []
        for leak in pending.leaks {
            findings.append(finding(for: leak, now: now))
        }
        for (entry, fingerprint) in pending.lateReleases {
            findings.append(lateRelease(of: entry, fingerprint: fingerprint, now: now))
        }
        for exceeded in pending.budgets {
            findings.append(budgetFinding(exceeded, now: now))
        }
        return findings
    }

    /// Hands findings to the report and the handlers.
    private func deliver(_ findings: [LeakWatcherFinding]) {
        for finding in findings {
            configuration.report?(finding.record)
            if case .lateRelease = finding.kind { onLateRelease?(finding) } else { onLeak?(finding) }
        }
    }

    /// Objects watched (ignored ones included) as of the last check.
    public var watchedCount: Int { inbox.withLock { $0.watchedCount } }

    /// `watch` calls dropped because `maxWatched` objects were already watched or queued.
    public var droppedCount: Int { inbox.withLock { $0.dropped } }

    // MARK: Findings

    private var timeoutMs: Int {
        Int(min((configuration.interval * Double(configuration.strikes) * 1000).rounded(), Double(Int32.max)))
    }

    private func finding(for leak: (entry: WatchedObject, object: AnyObject), now: UInt64) -> LeakWatcherFinding {
        let entry = leak.entry
        let path = retainPath(to: leak.object)
        // Kept for the late release, should the object go after all.
        state.withLock { _ in entry.fingerprint = path?.fingerprint }
        let checks = configuration.strikes == 1 ? "1 check" : "\(configuration.strikes) checks in a row"
        var message = "\(RetainPathNames.short(entry.typeName)) is still alive after \(checks)"
        if let path { message += ": " + path.readable }
        let record = CheckRecord(
            scenario: entry.scenario, file: entry.location.reportedFile, line: entry.location.line, type: entry.typeName,
            outcome: .leaked, waitedMs: entry.millisecondsWatched(at: now), timeoutMs: timeoutMs,
            lifecycle: "watcher", retainPath: path?.steps, fingerprint: path?.fingerprint,
            message: message, source: .watcher
        )
        return LeakWatcherFinding(kind: .leak, record: record, retainPath: path)
    }

    private func retainPath(to object: AnyObject) -> RetainPathReport? {
        guard configuration.findsRetainPaths else { return nil }
        let roots = configuration.retainPathRoots?() ?? []
        return findRetainPath(to: object, roots: roots, limits: configuration.retainPathLimits)
    }

    private func lateRelease(of entry: WatchedObject, fingerprint: String?, now: UInt64) -> LeakWatcherFinding {
        let record = CheckRecord(
            scenario: entry.scenario, file: entry.location.reportedFile, line: entry.location.line, type: entry.typeName,
            outcome: .lateRelease, waitedMs: entry.millisecondsWatched(at: now), timeoutMs: timeoutMs,
            lifecycle: "watcher", fingerprint: fingerprint,
            message: "\(RetainPathNames.short(entry.typeName)) was reported leaked, then deallocated after all",
            source: .watcher
        )
        return LeakWatcherFinding(kind: .lateRelease, record: record, retainPath: nil)
    }

    private func budgetFinding(_ exceeded: ExceededBudget, now: UInt64) -> LeakWatcherFinding {
        let budget = exceeded.budget
        let path = retainPath(to: exceeded.sample)
        var message = "\(exceeded.count) live \(budget.label) instances; the budget is \(budget.limit)"
        if let path { message += ". One of them: " + path.readable }
        let entry = exceeded.sampleEntry
        let record = CheckRecord(
            scenario: entry.scenario, file: entry.location.reportedFile, line: entry.location.line, type: entry.typeName,
            outcome: .leaked, waitedMs: entry.millisecondsWatched(at: now), timeoutMs: timeoutMs,
            lifecycle: "watcher-budget", retainPath: path?.steps, fingerprint: path?.fingerprint,
            message: message, source: .watcher
        )
        return LeakWatcherFinding(kind: .budgetExceeded(budget), record: record, retainPath: path)
    }
}
