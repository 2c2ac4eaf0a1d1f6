import Dispatch
import Foundation
import LeakReport
import Testing
@testable import LeakCheck
@testable import LeakRuntime

/// Collects what a watcher hands out, from any thread.
final class FindingRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var leaks: [LeakWatcherFinding] = []
    private var lateReleases: [LeakWatcherFinding] = []
    private var records: [CheckRecord] = []

    var leakFindings: [LeakWatcherFinding] { lock.withLock { leaks } }
    var lateReleaseFindings: [LeakWatcherFinding] { lock.withLock { lateReleases } }
    var reportedRecords: [CheckRecord] { lock.withLock { records } }
    private var finished = false
    var isFinished: Bool { lock.withLock { finished } }
    func markFinished() { lock.withLock { finished = true } }

    func watcher(_ configuration: LeakWatcher.Configuration = .init()) -> LeakWatcher {
        var configuration = configuration
        configuration.report = { record in self.lock.withLock { self.records.append(record) } }
        return LeakWatcher(
            configuration: configuration,
            onLeak: { finding in self.lock.withLock { self.leaks.append(finding) } },
            onLateRelease: { finding in self.lock.withLock { self.lateReleases.append(finding) } }
        )
    }
}

final class WatchedToken: Sendable {}

@Suite("LeakWatcher")
struct LeakWatcherTests {
    @Test func leakIsReportedAfterTheConfiguredStrikes() throws {
        let recorder = FindingRecorder()
        let watcher = recorder.watcher()
        let presenter = LeakCheckTests.strongDelegate()
        let watchLine = #line + 1
        watcher.watch(presenter, name: "Profile")

        #expect(watcher.checkNow().isEmpty)
        let findings = watcher.checkNow()
        #expect(findings.count == 1)
        #expect(watcher.checkNow().isEmpty)  // reported once

        let record = try #require(recorder.reportedRecords.first)
        #expect(recorder.reportedRecords.count == 1)
        #expect(recorder.leakFindings.count == 1)
        #expect(record.outcome == .leaked)
        #expect(record.source == .watcher)
        #expect(record.scenario == "Profile")
        #expect(record.type == "LeakCheckTests.ProfilePresenter")
        #expect(record.timeoutMs == 6000)
        #expect(record.file == "Tests/LeakCheckTests/Watcher/LeakWatcherTests.swift")
        #expect(record.line == watchLine)
        #expect(record.retainPath?.map(\.property) == ["delegate", "presenter"])
        #expect(record.fingerprint == findRetainPath(to: presenter).fingerprint)
        #expect(record.message == "ProfilePresenter is still alive after 2 checks in a row: "
            + "ProfilePresenter.delegate → ProfileScreen.presenter → ProfilePresenter")
    }

    @Test func retainPathsSearchTheConfiguredRoots() {
        let cache = ImageCache()
        let image = CachedImage()
        cache.entries = [image]
        var configuration = LeakWatcher.Configuration(strikes: 1, report: nil)
        let roots = UncheckedBox(cache)
        configuration.retainPathRoots = { [roots.value] }
        let watcher = LeakWatcher(configuration: configuration)
        watcher.watch(image)
        let finding = watcher.checkNow().first
        #expect(finding?.retainPath?.origin == .root)
        #expect(finding?.record.message == "CachedImage is still alive after 1 check: ImageCache.entries[0] → CachedImage")
    }

    @Test func strikesAreConfigurable() {
        let watcher = FindingRecorder().watcher(.init(strikes: 3, findsRetainPaths: false))
        let token = WatchedToken()
        watcher.watch(token)
        #expect(watcher.checkNow().isEmpty)
        #expect(watcher.checkNow().isEmpty)
        let findings = watcher.checkNow()
        #expect(findings.map(\.kind) == [.leak])
        #expect(findings.first?.record.retainPath == nil)
        #expect(findings.first?.record.scenario == "LeakWatcher/WatchedToken")
    }

    @Test func hugeSettingsAreClamped() {
        let watcher = FindingRecorder().watcher(.init(interval: 1e300, strikes: .max, findsRetainPaths: false))
        #expect(watcher.configuration.interval == 86_400)
        watcher.start()
        watcher.stop()
        let budgeted = FindingRecorder().watcher(
            .init(strikes: .max, budgets: [.type(WatchedToken.self, atMost: 0)], findsRetainPaths: false))
        let token = WatchedToken()
        budgeted.watch(token)
        #expect(budgeted.checkNow().first?.record.timeoutMs == Int(Int32.max))
    }

    @Test func objectReleasedBeforeTheLastStrikeIsNoLeak() {
        let recorder = FindingRecorder()
        let watcher = recorder.watcher()
        var token: WatchedToken? = WatchedToken()
        watcher.watch(token!)
        #expect(watcher.checkNow().isEmpty)
        #expect(watcher.watchedCount == 1)
        token = nil
        #expect(watcher.checkNow().isEmpty)
        #expect(watcher.watchedCount == 0)
        #expect(recorder.reportedRecords.isEmpty)
    }

    @Test func lateRelease() {
        let recorder = FindingRecorder()
        let watcher = recorder.watcher()
        var owner: SourcelessCycle? = SourcelessCycle()
        watcher.watch(owner!)
        watcher.checkNow()
        #expect(watcher.checkNow().map(\.kind) == [.leak])
        owner?.breakCycle()
        owner = nil

        let findings = watcher.checkNow()
        #expect(findings.map(\.kind) == [.lateRelease])
        #expect(recorder.lateReleaseFindings.count == 1)
        #expect(recorder.leakFindings.count == 1)
        let records = recorder.reportedRecords
        #expect(records.map(\.outcome) == [.leaked, .lateRelease])
        #expect(records.last?.fingerprint == records.first?.fingerprint)
        #expect(records.last?.fingerprint != nil)
        #expect(watcher.checkNow().isEmpty)
    }

    @Test func ignoreAndRewatch() {
        let watcher = FindingRecorder().watcher(.init(findsRetainPaths: false))
        let token = WatchedToken()
        watcher.watch(token)
        watcher.ignore(token)
        for _ in 0..<3 { #expect(watcher.checkNow().isEmpty) }
        watcher.watch(token)  // still ignored
        for _ in 0..<3 { #expect(watcher.checkNow().isEmpty) }

        watcher.rewatch(token)
        #expect(watcher.checkNow().isEmpty)
        #expect(watcher.checkNow().map(\.kind) == [.leak])

        // Rewatching a reported object starts its strikes again, under the new name.
        watcher.rewatch(token, name: "Again")
        #expect(watcher.checkNow().isEmpty)
        #expect(watcher.checkNow().map(\.record.scenario) == ["Again"])
        #expect(watcher.watchedCount == 1)
    }

    @Test func ignoreBeforeWatch() {
        let watcher = FindingRecorder().watcher(.init(findsRetainPaths: false))
        let token = WatchedToken()
        watcher.ignore(token)
        watcher.watch(token)
        for _ in 0..<3 { #expect(watcher.checkNow().isEmpty) }
    }

    @Test func ignoredTypeAndAllowlist() {
        let watcher = FindingRecorder().watcher(.init(allowlist: ["CachedImage", "LeakCheckTests.ImageCache"], findsRetainPaths: false))
        watcher.ignore(type: WatchedToken.self)
        let token = WatchedToken(), image = CachedImage(), cache = ImageCache(), other = GraphNode()
        for object in [token, image, cache, other] as [AnyObject] { watcher.watch(object) }
        watcher.checkNow()
        let findings = watcher.checkNow()
        #expect(findings.map(\.record.type) == ["LeakCheckTests.GraphNode"])
    }

    @Test func typeBudget() {
        let recorder = FindingRecorder()
        let watcher = recorder.watcher(.init(strikes: 100, budgets: [.type(GraphNode.self, atMost: 2)]))
        var nodes = [GraphNode(), GraphNode()]
        for node in nodes { watcher.watch(node) }
        watcher.watch(WatchedToken())
        #expect(watcher.checkNow().isEmpty)

        nodes.append(GraphNode())
        watcher.watch(nodes[2])
        let findings = watcher.checkNow()
        #expect(findings.map(\.kind) == [.budgetExceeded(.type(GraphNode.self, atMost: 2))])
        #expect(findings.first?.record.message?.hasPrefix("3 live GraphNode instances; the budget is 2") == true)
        #expect(findings.first?.record.lifecycle == "watcher-budget")
        #expect(recorder.leakFindings.count == 1)
        #expect(watcher.checkNow().isEmpty)  // reported once while exceeded

        nodes.removeLast()
        #expect(watcher.checkNow().isEmpty)  // back within budget
        nodes.append(GraphNode())
        watcher.watch(nodes[2])
        #expect(watcher.checkNow().count == 1)  // exceeded again
    }

    @Test func groupBudget() {
        let watcher = FindingRecorder().watcher(.init(strikes: 100, budgets: [.group("Screens", atMost: 1)]))
        let first = GraphNode(), second = CachedImage(), elsewhere = GraphNode()
        watcher.watch(first, name: "Screens")
        watcher.watch(elsewhere, name: "Other")
        #expect(watcher.checkNow().isEmpty)
        watcher.watch(second, name: "Screens")
        #expect(watcher.checkNow().map(\.kind) == [.budgetExceeded(.group("Screens", atMost: 1))])
    }

    @Test func concurrentWatchFromManyThreads() {
        let watcher = FindingRecorder().watcher(.init(strikes: 1_000, findsRetainPaths: false))
        let tokens = (0..<2_000).map { _ in WatchedToken() }
        DispatchQueue.concurrentPerform(iterations: tokens.count + 20) { index in
            if index < tokens.count {
                watcher.watch(tokens[index])
                if index.isMultiple(of: 3) { watcher.watch(tokens[index]) }  // duplicates collapse
            } else {
                watcher.checkNow()
            }
        }
        watcher.checkNow()
        #expect(watcher.watchedCount == tokens.count)
        #expect(watcher.droppedCount == 0)
    }

    @Test func memoryIsBounded() {
        let watcher = FindingRecorder().watcher(.init(findsRetainPaths: false, maxWatched: 10))
        let tokens = (0..<25).map { _ in WatchedToken() }
        for token in tokens { watcher.watch(token) }
        watcher.checkNow()
        #expect(watcher.watchedCount == 10)
        #expect(watcher.droppedCount == 15)
    }

    @Test func handlersMayCallTheWatcherBack() {
        // Handlers run outside the watcher's locks: watching or checking from one must not deadlock.
        let box = WatcherBox()
        let watcher = LeakWatcher(configuration: .init(strikes: 1, findsRetainPaths: false, report: nil), onLeak: { _ in
            box.watcher?.watch(WatchedToken())
            _ = box.watcher?.checkNow()
        })
        box.watcher = watcher
        let token = WatchedToken()
        watcher.watch(token)
        #expect(watcher.checkNow().map(\.kind) == [.leak])
    }

    @Test func watchReturnsWhileACheckIsBusy() {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let handler = FindingRecorder()
        let watcher = LeakWatcher(configuration: .init(strikes: 1, findsRetainPaths: false, report: nil), onLeak: { _ in
            entered.signal()
            _ = release.wait(timeout: .now() + 30)
            handler.markFinished()
        })
        let first = WatchedToken()
        watcher.watch(first)
        let check = DispatchGroup()
        DispatchQueue.global().async(group: check) { watcher.checkNow() }
        entered.wait()
        // The check is held in its handler; watching, ignoring and counting must not wait for it.
        let second = WatchedToken()
        watcher.watch(second)
        watcher.ignore(first)
        _ = watcher.watchedCount
        #expect(!handler.isFinished)
        release.signal()
        check.wait()
        release.signal()  // for the next check's handler
        #expect(watcher.checkNow().map(\.record.type) == ["LeakCheckTests.WatchedToken"])  // the second token only
    }

    @Test func writesToAnNDJSONReport() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("leakwatcher-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var configuration = LeakWatcher.Configuration(strikes: 1)
        configuration.writeReport(to: try NDJSONWriter(path: path))
        let watcher = LeakWatcher(configuration: configuration)
        let ring = threeObjectRing()
        watcher.watch(ring.1)
        watcher.checkNow()
        let records = try NDJSONReader.checks(atPath: path)
        #expect(records.count == 1)
        #expect(records.first?.source == .watcher)
        #expect(records.first?.fingerprint == findRetainPath(to: ring.0).fingerprint)
        #expect(records.first?.retainPath?.count == 3)
    }

    @Test func findingsGoToTheProcessReportByDefault() {
        let watcher = LeakWatcher(configuration: .init(strikes: 1, findsRetainPaths: false))
        let token = WatchedToken()
        watcher.watch(token, name: "Default")
        let capture = CheckCapture()
        ReportSink.$capture.withValue(capture) { _ = watcher.checkNow() }
        #expect(capture.all.map(\.scenario) == ["Default"])
        #expect(capture.all.first?.source == .watcher)
    }

    /// UIKit's case, with a queue of our own standing in for the main queue: the timer's look at
    /// the objects (the roots asked for, the retain-path walk) runs on the object queue only, and
    /// the report and handlers get the findings back on the watcher's queue.
    @Test func withAnObjectQueueObjectsAreLookedAtThereOnly() async throws {
        let objects = DispatchQueue(label: "objects")
        let onObjects = DispatchSpecificKey<Bool>()
        objects.setSpecific(key: onObjects, value: true)
        let rootsAskedOnObjectQueue = Locked<[Bool]>([])
        let deliveredOnObjectQueue = Locked<[Bool]>([])
        var configuration = LeakWatcher.Configuration(interval: 0.01, strikes: 2)
        configuration.objectQueue = objects
        configuration.retainPathRoots = {
            rootsAskedOnObjectQueue.withLock { $0.append(DispatchQueue.getSpecific(key: onObjects) == true) }
            return []
        }
        configuration.report = { _ in deliveredOnObjectQueue.withLock { $0.append(DispatchQueue.getSpecific(key: onObjects) == true) } }
        let watcher = LeakWatcher(configuration: configuration)
        let token = WatchedToken()
        watcher.watch(token)
        watcher.start()
        defer { watcher.stop() }
        // Polls for the finding; the bound only keeps a broken timer from hanging the run.
        for _ in 0..<1_000 where deliveredOnObjectQueue.withLock({ $0.isEmpty }) {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(rootsAskedOnObjectQueue.withLock { $0 } == [true])
        #expect(deliveredOnObjectQueue.withLock { $0 } == [false])
        withExtendedLifetime(token) {}
    }

    @Test func periodicCheckFindsALeakWithoutCheckNow() async throws {
        let recorder = FindingRecorder()
        let watcher = recorder.watcher(.init(interval: 0.01, strikes: 2, findsRetainPaths: false))
        let token = WatchedToken()
        watcher.watch(token)
        watcher.start()
        defer { watcher.stop() }
        // Polls for the first finding; the bound only keeps a broken timer from hanging the run.
        for _ in 0..<1_000 where recorder.leakFindings.isEmpty {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(recorder.leakFindings.count == 1)
        #expect(recorder.leakFindings.first?.record.type == "LeakCheckTests.WatchedToken")
    }
}

/// A two-object cycle that can be broken, for late releases.
final class SourcelessCycle {
    var partner: CyclePartner?
    init() {
        let partner = CyclePartner()
        partner.owner = self
        self.partner = partner
    }
    func breakCycle() { partner = nil }
}

final class CyclePartner {
    var owner: SourcelessCycle?
}

final class WatcherBox: @unchecked Sendable {
    var watcher: LeakWatcher?
}
