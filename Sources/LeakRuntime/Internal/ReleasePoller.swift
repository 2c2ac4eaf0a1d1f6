/// Decides, poll by poll, which objects went in time, which went late and which leaked.
///
/// Checks once at once (a clean object passes in microseconds), then yields a few times for
/// work already queued, then sleeps with a doubling backoff; never a fixed delay. The async and
/// the run-loop-pumping forms share this one state machine and differ only in how they pause.
package struct ReleasePoller {
    package enum Fate: Equatable {
        case deallocated(waited: Duration)
        case lateRelease(waited: Duration)
        case leaked(waited: Duration)

        package var waited: Duration {
            switch self {
            case let .deallocated(waited), let .lateRelease(waited), let .leaked(waited): waited
            }
        }
    }

    package let references: [WeakReference]
    package let timeout: Duration
    package let gracePeriod: Duration
    package private(set) var fates: [Fate?]
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var polls = 0

    package init(_ references: [WeakReference], timeouts: DeallocationTimeouts) {
        self.references = references
        self.timeout = timeouts.resolvedTimeout
        self.gracePeriod = timeouts.resolvedGracePeriod
        self.fates = Array(repeating: nil, count: references.count)
        self.start = clock.now
    }

    /// Looks at every undecided object. Returns how long to pause before the next poll
    /// (`.zero` means yield), or nil when every object has a fate.
    package mutating func poll() -> Duration? {
        let elapsed = clock.now - start
        var undecided = false
        for index in references.indices where fates[index] == nil {
            if references[index].isReleased {
                // Gone at the first look means gone before any wait, however late this thread
                // got to look (a loaded machine can delay it past a short timeout).
                let inTime = elapsed <= timeout || polls == 0
                fates[index] = inTime ? .deallocated(waited: elapsed) : .lateRelease(waited: elapsed)
            } else if elapsed >= timeout + gracePeriod {
                fates[index] = .leaked(waited: elapsed)
            } else {
                undecided = true
            }
        }
        guard undecided else { return nil }
        polls += 1
        if polls <= 3 { return .zero }
        let backoff = Duration.microseconds(50) * (1 << min(polls - 4, 9))   // 50 µs … 25.6 ms
        let untilNextDeadline = (elapsed < timeout ? timeout : timeout + gracePeriod) - elapsed
        return min(backoff, max(untilNextDeadline, .microseconds(10)))
    }

    /// Polls, pausing with `Task.sleep`, until every object has a fate.
    package mutating func run() async -> [Fate] {
        while let pause = poll() {
            if pause == .zero {
                await Task.yield()
            } else {
                try? await Task.sleep(for: pause)
            }
        }
        return fates.map { $0! }
    }

    /// Polls, running the current run loop between polls, until every object has a fate.
    package mutating func runPumpingRunLoop() -> [Fate] {
        while let pause = poll() {
            RunLoopPump.run(for: pause)
        }
        return fates.map { $0! }
    }
}
