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

/// A scheduled Foundation timer whose block captures its owner, which keeps the timer.
final class Ticker: @unchecked Sendable {
    var timer: Timer?
    var ticks = 0
    init() {
        timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in self.ticks += 1 }
    }
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
