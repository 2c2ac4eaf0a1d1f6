import Foundation
@testable import LeakCheck
@testable import LeakRuntime
import LeakReport
import Testing

// Leaks through what the process holds: globals, statics, runtime-owned holders. Each shape
// has its own variable, so the tests may run in parallel.

final class RegisteredSession {}
nonisolated(unsafe) var sessionRegistry: [RegisteredSession] = []

final class Thumbnail {}
enum ThumbnailStore {
    nonisolated(unsafe) static var cache: [String: Thumbnail] = [:]
}

final class CachedSession {}
final class SessionCache: @unchecked Sendable {
    static let shared = SessionCache()
    var sessions: [CachedSession] = []
}

final class SettingsObserver: @unchecked Sendable {
    var token: NSObjectProtocol?
    var changes = 0
    /// Each test observes its own name, so the tests may run in parallel.
    init(center: NotificationCenter, name: String = "LeakCheckCorpus.settings") {
        token = center.addObserver(forName: Notification.Name(name), object: nil, queue: nil) { _ in
            self.changes += 1
        }
    }
}

@Suite("Global leak shapes")
struct GlobalShapeTests {
    @Test func globalArray() {
        let session = RegisteredSession()
        sessionRegistry.append(session)
        defer { sessionRegistry.removeAll() }
        let report = findRetainPath(to: session, limits: .unhurried)
        #expect(report.origin == .global)
        #expect(report.readable == "LeakCheckCorpusTests.sessionRegistry[0] → RegisteredSession")
        #expect(report.steps?.first?.kind == .global)
        #expect(report.isProven)
    }

    @Test func staticDictionary() {
        let thumbnail = Thumbnail()
        ThumbnailStore.cache["avatar"] = thumbnail
        defer { ThumbnailStore.cache.removeAll() }
        let report = findRetainPath(to: thumbnail, limits: .unhurried)
        #expect(report.readable == "ThumbnailStore.cache[\"avatar\"] → Thumbnail")
    }

    @Test func staticLetShared() {
        let session = CachedSession()
        SessionCache.shared.sessions = [session]
        defer { SessionCache.shared.sessions = [] }
        let report = findRetainPath(to: session, limits: .unhurried)
        #expect(report.readable == "SessionCache.shared → SessionCache.sessions[0] → CachedSession")
    }

    @Test func notificationCenterBlock() {
        let observer = SettingsObserver(center: .default)
        defer { observer.token.map(NotificationCenter.default.removeObserver) }
        // A generous budget: in the whole test suite's process (every target's heap, both cores
        // busy) reaching the center can take longer than the default 500 ms, and this test is
        // about the path, not the speed (`leakhistory-bench retain` measures that).
        let report = findRetainPath(to: observer, limits: .unhurried)
        // The center keeps its observers behind a `Mutex`, read as the value its storage is laid
        // out like: every hop typed.
        #expect(report.origin == .global)
        #expect(report.readable == "FoundationEssentials._defaultCenter → NotificationCenter.registrar[\"LeakCheckCorpus.settings\"][nil].storage[0] (closure) → captures SettingsObserver")
        #expect(report.isProven)
        #expect(report.steps?.map(\.kind) == [.global, .closure])
    }
}

/// Held by a global behind other objects, for the backward scan's differential test.
final class ScannedLeaf {}
final class ScannedBranch {
    var leaves: [ScannedLeaf] = []
    var byName: [String: ScannedBranch] = [:]
}
nonisolated(unsafe) var scannedTree: ScannedBranch?

@Suite("The backward scan")
struct BackwardScanTests {
    /// The search that scans memory backwards names the same path as the plain forward walk
    /// from every global.
    @Test func findsThePathsTheForwardWalkFinds() {
        let leaf = ScannedLeaf()
        let inner = ScannedBranch()
        inner.leaves = [ScannedLeaf(), leaf]
        let root = ScannedBranch()
        root.byName["inner"] = inner
        scannedTree = root
        defer { scannedTree = nil }
        let observer = SettingsObserver(center: .default, name: "LeakCheckCorpus.scanned")
        defer { observer.token.map(NotificationCenter.default.removeObserver) }
        for object in [leaf, inner, observer] as [AnyObject] {
            var scanning = RetainPathSearch(target: object, limits: .unhurried)
            var forward = RetainPathSearch(target: object, limits: .unhurried, scansBackwards: false)
            let scanned = scanning.run(roots: []), walked = forward.run(roots: [])
            #expect(scanned.steps == walked.steps, "\(type(of: object))")
            #expect(scanned.isProven && walked.isProven, "\(type(of: object))")
        }
        // Unhurried: the walk from globals took over the 0.5 s default on a busy machine (CI).
        #expect(findRetainPath(to: leaf, limits: .unhurried).readable
            == "LeakCheckCorpusTests.scannedTree → ScannedBranch.byName[\"inner\"] → ScannedBranch.leaves[1] → ScannedLeaf")
    }

    /// An object no global holds: the scan finds no root, and the forward walk from every global
    /// (which it then falls back to, within the budget) finds none either.
    @Test func anObjectNoGlobalHoldsHasNoPath() {
        let loose = ScannedLeaf()
        let report = findRetainPath(to: loose)
        #expect(report.steps == nil)
        #expect(report.suspects.isEmpty)
        withExtendedLifetime(loose) {}
    }
}

/// The watcher's own cache, apart from `SessionCache` so the suites may run in parallel.
final class WatchedSessionCache: @unchecked Sendable {
    static let shared = WatchedSessionCache()
    var sessions: [CachedSession] = []
}

@Suite("The watcher's search")
struct WatcherSearchTests {
    @Test func watcherNamesTheSamePathsAsTheChecks() {
        let watcher = LeakWatcher(configuration: .init(strikes: 1, retainPathLimits: .unhurried, report: nil))
        let session = CachedSession()
        WatchedSessionCache.shared.sessions = [session]
        defer { WatchedSessionCache.shared.sessions = [] }
        let viewModel = ProfileViewModel()
        watcher.watch(viewModel, name: "Profile")
        watcher.watch(session, name: "Session")
        let findings = watcher.checkNow()
        let paths = Set(findings.compactMap { $0.retainPath?.readable })
        #expect(paths == [
            "ProfileViewModel.onDone (closure) → captures ProfileViewModel",
            "WatchedSessionCache.shared → WatchedSessionCache.sessions[0] → CachedSession",
        ])
        #expect(Set(findings.compactMap(\.record.message)) == [
            "ProfileViewModel is still alive after 1 check: ProfileViewModel.onDone (closure) → captures ProfileViewModel",
            "CachedSession is still alive after 1 check: WatchedSessionCache.shared → WatchedSessionCache.sessions[0] → CachedSession",
        ])
    }
}

extension RetainPathLimits {
    /// The default bounds with a time budget no loaded machine reaches: for tests that assert a
    /// path, so that they do not depend on how busy the machine is.
    static let unhurried = RetainPathLimits(timeBudget: .seconds(30))
}
