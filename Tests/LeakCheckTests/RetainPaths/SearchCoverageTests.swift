import LeakReport
import Testing
@testable import LeakCheck
@testable import LeakRuntime

/// Where the search cannot look, a leak's message says so, with what to check instead.
@Suite struct SearchCoverageTests {
    let apple = SearchCoverage(pointerBytes: 8, readsProcessMemory: false, platformName: "Apple platforms")
    let watch = SearchCoverage(pointerBytes: 4, readsProcessMemory: false, platformName: "Apple platforms")

    final class Screen {}
    final class Cyclic { var me: Cyclic? }

    @Test func noPathOnApplePlatformsSaysTheGlobalsWereNotSearched() {
        let screen = Screen()
        let found = findRetainPath(to: screen, limits: RetainPathLimits(searchesGlobals: false))
        let noted = apple.noting(found, limits: RetainPathLimits())
        #expect(noted.readable == found.readable
            + "; global and static variables were not searched (no memory scan on Apple platforms): if nothing else "
            + "holds it, look for a `static let shared` or another global that keeps it, directly or through an object it holds")
        #expect(noted.fingerprint == found.fingerprint)
        // In the failure message, as the test helpers and the watcher show it.
        let message = LeakMessage.leaked(
            [(typeName: "App.Screen", waited: .seconds(5), retainPath: noted.readable, hint: nil)], groupSize: 1,
            timeouts: DeallocationTimeouts())
        #expect(message.contains("What holds it: no strong reference path to Screen found; global and static variables were not searched"))
    }

    @Test func aPathFoundOrNoGlobalsAskedForAddsNothing() {
        let cyclic = Cyclic()
        cyclic.me = cyclic
        let cycle = findRetainPath(to: cyclic)
        #expect(apple.noting(cycle, limits: RetainPathLimits()) == cycle)
        cyclic.me = nil
        let none = findRetainPath(to: Screen(), limits: RetainPathLimits(searchesGlobals: false))
        #expect(apple.noting(none, limits: RetainPathLimits(searchesGlobals: false)) == none)
    }

    @Test func whereTheMemoryIsReadNothingIsNoted() {
        #expect(SearchCoverage.current.readsProcessMemory, "Linux with glibc reads this process's memory")
        let none = findRetainPath(to: Screen(), limits: RetainPathLimits(searchesGlobals: false))
        #expect(SearchCoverage.current.noting(none, limits: RetainPathLimits()) == none)
    }

    @Test func thirtyTwoBitPointersSearchNothingAndSaySo() {
        #expect(!watch.searches)
        #expect(apple.searches)
        let report = watch.unsearchedReport(for: Screen())
        #expect(report.origin == .none && report.steps == nil && !report.isProven)
        #expect(report.readable.hasPrefix("the retain-path search did not run: it reads 64-bit runtime layouts, and pointers here are 32-bit."))
        #expect(report.readable.contains("`static let shared`"))
        #expect(report.fingerprint == LeakFingerprint.unexplained(type: String(reflecting: Screen.self)).value)
    }
}
