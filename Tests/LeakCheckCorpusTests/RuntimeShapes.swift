import Dispatch
import Foundation
import LeakCheck
import LeakReport
import Testing

// Leaks through holders the runtime owns: a running task (its closure context found where the
// runtime keeps it, then read by type), a dispatch timer (its handler found through libdispatch's
// structures, by their layout, then read by type), a Foundation timer (its block is a stored
// closure). Every path is proven.

final class FeedPoller: @unchecked Sendable {
    var task: Task<Void, Never>?
    var ticks = 0
    func start() {
        task = Task {
            while !Task.isCancelled {
                self.ticks += 1
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}

final class Heartbeat: @unchecked Sendable {
    var timer: (any DispatchSourceTimer)?
    var beats = 0
    init() {
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + 3600, repeating: 3600)
        timer.setEventHandler { self.beats += 1 }
        timer.activate()
        self.timer = timer
    }
}

/// A dispatch timer whose handler was set with a QoS: libdispatch wraps it in a block of its own
/// (`DispatchWorkItem`), whose layout LeakCheck does not read: the path is only possible.
final class QoSHeartbeat: @unchecked Sendable {
    var timer: (any DispatchSourceTimer)?
    var beats = 0
    init() {
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: .now() + 3600, repeating: 3600)
        timer.setEventHandler(qos: .utility, flags: []) { self.beats += 1 }
        timer.activate()
        self.timer = timer
    }
}

/// A dispatch timer started and dropped, as a scheduler does: only libdispatch keeps it, armed,
/// and its handler captures the object. `start` hands the timer back so the test can cancel it.
final class DroppedHeartbeat: @unchecked Sendable {
    var beats = 0
    func start(on queue: DispatchQueue, weakly: Bool = false) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 3600, repeating: 3600)
        if weakly {
            timer.setEventHandler { [weak self] in self?.beats += 1 }
        } else {
            timer.setEventHandler { self.beats += 1 }
        }
        timer.resume()
        return timer
    }
}

/// A scheduled Foundation timer whose block captures its owner, which keeps the timer.
final class Ticker: @unchecked Sendable {
    var timer: Timer?
    var ticks = 0
    init() {
        timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in self.ticks += 1 }
    }
}

/// libdispatch arms a resumed timer on its manager thread, a moment after `resume()`: searches
/// until a path is found, for at most 100 tries.
func retainPathOnceArmed(to object: AnyObject) async -> RetainPathReport {
    for _ in 0..<100 {
        let report = findRetainPath(to: object, limits: .unhurried)
        if report.steps != nil { return report }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return findRetainPath(to: object, limits: .unhurried)
}

@Suite("Runtime-owned leak shapes")
struct RuntimeShapeTests {
    @Test func storedTask() async {
        let poller = FeedPoller()
        poller.start()
        defer { poller.task?.cancel() }
        try? await Task.sleep(for: .milliseconds(30))
        let report = findRetainPath(to: poller)
        #expect(report.readable == "FeedPoller.task (task) → captures FeedPoller")
        #expect(report.isProven)
        #expect(report.steps == [RetainPathStep(holder: "LeakCheckCorpusTests.FeedPoller", property: "task", kind: .task)])
    }

    @Test func dispatchSourceTimer() {
        let heartbeat = Heartbeat()
        defer { heartbeat.timer?.cancel() }
        let report = findRetainPath(to: heartbeat)
        #expect(report.readable == "Heartbeat.timer.eventHandler (closure) → captures Heartbeat")
        #expect(report.isProven)
        #expect(report.origin == .cycle)
        #expect(report.steps == [RetainPathStep(holder: "LeakCheckCorpusTests.Heartbeat", property: "timer.eventHandler", kind: .closure)])
    }

    /// The timer is held by libdispatch alone (armed, in its timer heap): the path starts there.
    @Test func droppedDispatchTimer() async {
        let heartbeat = DroppedHeartbeat()
        let timer = heartbeat.start(on: DispatchQueue(label: "heartbeat"))
        defer { timer.cancel() }
        let report = await retainPathOnceArmed(to: heartbeat)
        #expect(report.readable == #"DispatchSource timer (armed, on queue "heartbeat") → eventHandler (closure) → captures DroppedHeartbeat"#)
        #expect(report.isProven)
        #expect(report.origin == .global)
        #expect(report.steps == [RetainPathStep(holder: #"DispatchSource timer (armed, on queue "heartbeat")"#, property: "eventHandler", kind: .timer)])
        #expect(report.hint?.hasPrefix("a dispatch source's handler captures it") == true)
    }

    /// A dropped timer whose handler captures weakly holds nothing (searched once libdispatch has
    /// armed it and a strong one resumed after it); a cancelled one lets go.
    @Test func droppedDispatchTimerThatHoldsNothingIsNotFlagged() async {
        var timers: [any DispatchSourceTimer] = []
        defer { timers.forEach { $0.cancel() } }
        do {
            let queue = DispatchQueue(label: "weak-heartbeat")
            let weak = DroppedHeartbeat()
            timers.append(weak.start(on: queue, weakly: true))
            let strong = DroppedHeartbeat()
            timers.append(strong.start(on: queue))
            #expect(await retainPathOnceArmed(to: strong).isProven)
            let report = findRetainPath(to: weak)
            #expect(report.steps == nil, "\(report.readable)")
            #expect(report.suspects.isEmpty, "\(report.suspects)")
        }
        await expectDeallocation(timeout: .seconds(10)) {
            let weak = DroppedHeartbeat()
            timers.append(weak.start(on: DispatchQueue(label: "weak-heartbeat"), weakly: true))
            let cancelled = DroppedHeartbeat()
            cancelled.start(on: DispatchQueue(label: "cancelled-heartbeat")).cancel()
            return [weak, cancelled]
        }
    }

    /// `asyncAfter` arms a timer of its own that keeps the block until the deadline: named so.
    @Test func asyncAfterBlock() async {
        let heartbeat = DroppedHeartbeat()
        // Pending for longer than any test run: on a loaded 2-core machine the test's task can wait
        // minutes for a thread of the cooperative pool, and the block (and the heartbeat) goes when
        // it has run.
        DispatchQueue(label: "later").asyncAfter(deadline: .now() + 3_600) { heartbeat.beats += 1 }
        let report = await retainPathOnceArmed(to: heartbeat)
        #expect(report.readable == #"asyncAfter (pending, on queue "later") → block (closure) → captures DroppedHeartbeat"#)
        #expect(report.isProven)
        #expect(report.hint?.hasPrefix("a block scheduled with asyncAfter captures it") == true)
    }

    @Test func scheduledTimer() {
        let ticker = Ticker()
        defer { ticker.timer?.invalidate() }
        let report = findRetainPath(to: ticker)
        #expect(report.readable == "Ticker.timer → Timer._fire (closure) → captures Ticker")
        #expect(report.isProven)
        #expect(report.steps == [
            RetainPathStep(holder: "LeakCheckCorpusTests.Ticker", property: "timer", kind: .strong),
            RetainPathStep(holder: "Foundation.Timer", property: "_fire", kind: .closure),
        ])
    }
}
