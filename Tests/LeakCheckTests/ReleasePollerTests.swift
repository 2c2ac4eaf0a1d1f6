import Foundation
import Testing
@testable import LeakCheck
@testable import LeakRuntime

@Suite struct ReleasePollerTests {
    private func isDeallocated(_ fate: ReleasePoller.Fate?) -> Bool {
        if case .deallocated = fate { true } else { false }
    }

    private func isLate(_ fate: ReleasePoller.Fate?) -> Bool {
        if case .lateRelease = fate { true } else { false }
    }

    @Test func goneAtTheFirstLookIsInTimeHoweverLateTheLook() {
        var object: CleanObject? = CleanObject()
        let reference = WeakReference(object!)
        var poller = ReleasePoller([reference], timeouts: DeallocationTimeouts(timeout: .nanoseconds(1), gracePeriod: .seconds(5)))
        object = nil
        Thread.sleep(forTimeInterval: 0.005)   // the thread gets to look only after the timeout
        #expect(poller.poll() == nil)
        #expect(isDeallocated(poller.fates[0]))
    }

    @Test func goneAfterALookPastTheTimeoutIsLate() {
        var object: CleanObject? = CleanObject()
        let reference = WeakReference(object!)
        var poller = ReleasePoller([reference], timeouts: DeallocationTimeouts(timeout: .milliseconds(2), gracePeriod: .seconds(5)))
        #expect(poller.poll() != nil, "alive at the first look")
        Thread.sleep(forTimeInterval: 0.01)
        object = nil
        #expect(poller.poll() == nil)
        #expect(isLate(poller.fates[0]))
    }

    @Test func aliveAfterTimeoutAndGraceIsLeaked() {
        let object = CleanObject()
        var poller = ReleasePoller([WeakReference(object)], timeouts: DeallocationTimeouts(timeout: .milliseconds(1), gracePeriod: .milliseconds(1)))
        #expect(poller.poll() != nil)
        Thread.sleep(forTimeInterval: 0.01)
        #expect(poller.poll() == nil)
        if case .leaked = poller.fates[0] {} else { Issue.record("expected a leak, got \(String(describing: poller.fates[0]))") }
        withExtendedLifetime(object) {}
    }
}
