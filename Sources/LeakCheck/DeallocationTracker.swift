/// The objects a test handed to `trackForDeallocation`, checked together when the test ends.
///
/// The `.checksDeallocation` trait puts one in `DeallocationTracker.current` for each test (each
/// case of a parameterised test); `XCTestCase.trackForDeallocation` uses one per call.
public final class DeallocationTracker: Sendable {
    struct Entry: Sendable {
        var reference: WeakReference
        var context: CheckContext
    }

    private let entries = Locked<[Entry]>([])

    /// The tracker of the running test, if its trait set one.
    @TaskLocal public static var current: DeallocationTracker?

    public init() {}

    func track(_ object: AnyObject, context: CheckContext) {
        let entry = Entry(reference: WeakReference(object), context: context)
        entries.withLock { $0.append(entry) }
    }

    /// Waits for every tracked object together and reports each leak at its `track` call.
    /// Objects tracked with the same timeouts share one wait.
    func verifyAll() async {
        let tracked = entries.withLock { entries in
            defer { entries.removeAll() }
            return entries
        }
        var poller = ReleasePoller(tracked.map(\.reference), timeouts: Self.longest(tracked.map(\.context.timeouts)))
        let fates = await poller.run()
        // A tracked object that leaked is searched for from the other tracked objects too.
        let others = tracked.compactMap { $0.reference.object }
        for (entry, fate) in zip(tracked, fates) {
            let roots: [Any] = others.filter { $0 !== entry.reference.object }
            await DeallocationCheck.report(
                [entry.context.timeouts.judge(fate)], of: [entry.reference], context: entry.context, roots: roots,
                testCase: nil)
        }
    }

    /// The widest wait among `timeouts`, so that one shared poll serves every entry.
    private static func longest(_ timeouts: [DeallocationTimeouts]) -> DeallocationTimeouts {
        DeallocationTimeouts(
            timeout: timeouts.map(\.resolvedTimeout).max() ?? DeallocationTimeouts.defaultTimeout,
            gracePeriod: timeouts.map { $0.resolvedTimeout + $0.resolvedGracePeriod }.max().map { total in
                total - (timeouts.map(\.resolvedTimeout).max() ?? .zero)
            })
    }
}

extension DeallocationTimeouts {
    /// Re-reads a fate decided under a longer shared wait against these timeouts.
    func judge(_ fate: ReleasePoller.Fate) -> ReleasePoller.Fate {
        let waited = fate.waited
        switch fate {
        case .deallocated, .lateRelease:
            if waited <= resolvedTimeout { return .deallocated(waited: waited) }
            if waited <= resolvedTimeout + resolvedGracePeriod { return .lateRelease(waited: waited) }
            return .leaked(waited: waited)
        case .leaked:
            return .leaked(waited: waited)
        }
    }
}
