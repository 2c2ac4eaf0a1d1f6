import LeakReport

/// The part of every check after the objects are released: wait for them, then report what
/// happened — issues at the caller's location, and one report line per object.
enum DeallocationCheck {
    /// Waits (yielding and sleeping) for one attempt's released objects and reports their fates.
    ///
    /// When one of them outlives its deadline and `context.attempts` allows, the leak is
    /// confirmed first: `again` makes each further attempt's objects (fresh, from the same factory
    /// and lifecycle, already released; nil when it could not), and all of those are waited for
    /// together, so confirming costs one more wait, not one per attempt. A clean check runs once.
    static func verify(
        _ first: [WeakReference], context: CheckContext, roots: [Any] = [], testCase: AnyObject? = nil,
        isolation: isolated (any Actor)? = #isolation,
        again: () async throws -> [WeakReference]?
    ) async rethrows {
        var attempts = CheckAttempts(first: first, fates: await wait(for: first, context: context))
        if attempts.needConfirming(upTo: context.attempts) {
            var made: [[WeakReference]] = []
            while made.count + 1 < context.attempts, let references = try await again() {
                made.append(references)
            }
            attempts.append(made, fates: await wait(for: made.flatMap { $0 }, context: context))
        }
        await report(attempts, context: context, roots: roots, testCase: testCase)
    }

    /// Waits (pumping the run loop) for one attempt's released objects, confirms a leak with
    /// `again` as `verify` does, and reports their fates. XCTest only. A check that cannot be
    /// repeated has one attempt in its context.
    static func verifyPumpingRunLoop(
        _ first: [WeakReference], context: CheckContext, roots: [Any] = [], testCase: AnyObject? = nil,
        again: () throws -> [WeakReference]?
    ) rethrows {
        var attempts = CheckAttempts(first: first, fates: waitPumpingRunLoop(for: first, context: context))
        if attempts.needConfirming(upTo: context.attempts) {
            var made: [[WeakReference]] = []
            while made.count + 1 < context.attempts, let references = try again() {
                made.append(references)
            }
            attempts.append(made, fates: waitPumpingRunLoop(for: made.flatMap { $0 }, context: context))
        }
        let outcome = judge(attempts, context: context, roots: roots, testCase: testCase)
        if let leak = outcome.leakMessage {
            IssueReporter.recordLeakOutsideSwiftTesting(leak, at: context.location, in: testCase)
        }
        outcome.records.forEach(ReportSink.record)
    }

    /// Each wait of a check, as the fates it decided, in the task that sets it: lets a test
    /// count the waits that confirming a leak takes (one wait to the deadline more, whatever
    /// the number of attempts).
    @TaskLocal static var waits: Locked<[[ReleasePoller.Fate]]>?

    private static func wait(
        for references: [WeakReference], context: CheckContext, isolation: isolated (any Actor)? = #isolation
    ) async -> [ReleasePoller.Fate] {
        guard !references.isEmpty else { return [] }
        var poller = ReleasePoller(references, timeouts: context.timeouts)
        let fates = await poller.run()
        waits?.withLock { $0.append(fates) }
        return fates
    }

    private static func waitPumpingRunLoop(for references: [WeakReference], context: CheckContext) -> [ReleasePoller.Fate] {
        guard !references.isEmpty else { return [] }
        var poller = ReleasePoller(references, timeouts: context.timeouts)
        let fates = poller.runPumpingRunLoop()
        waits?.withLock { $0.append(fates) }
        return fates
    }

    /// Reports the fates of objects that had one attempt (tracked objects, decided together).
    static func report(
        _ fates: [ReleasePoller.Fate], of references: [WeakReference], context: CheckContext, roots: [Any] = [],
        testCase: AnyObject?, isolation: isolated (any Actor)? = #isolation
    ) async {
        await report(CheckAttempts(first: references, fates: fates), context: context, roots: roots, testCase: testCase)
    }

    /// Reports what the attempts showed: issues at the caller's location, one report line per
    /// object. A leak recorded inside `withKnownIssue` is marked `knownIssue` in its lines.
    private static func report(
        _ attempts: CheckAttempts, context: CheckContext, roots: [Any] = [],
        testCase: AnyObject?, isolation: isolated (any Actor)? = #isolation
    ) async {
        var outcome = judge(attempts, context: context, roots: roots, testCase: testCase)
        if let leak = outcome.leakMessage,
           await IssueReporter.recordLeak(leak, at: context.location, in: testCase) {
            for index in outcome.records.indices where outcome.records[index].outcome == .leaked {
                outcome.records[index].knownIssue = true
            }
        }
        outcome.records.forEach(ReportSink.record)
    }

    /// The report lines of a check and the message of its leak, if any. A leaked object is still
    /// alive here, so what holds it is searched for (a cycle back to it, or a path from `roots` or
    /// from the other survivors) and named in the message and the lines, with the leak's
    /// fingerprint; once a position, on the first attempt's object that leaked. An object that
    /// leaked in any attempt is `leaked`, with its attempts counted in its line (intermittent when
    /// some attempt released it). Late releases are recorded as warnings here; the leak is left to
    /// the caller, which knows how to wait.
    private static func judge(
        _ attempts: CheckAttempts, context: CheckContext, roots: [Any], testCase: AnyObject?
    ) -> (records: [CheckRecord], leakMessage: String?) {
        let positions = attempts.positions
        var survivors: [(typeName: String, waited: Duration, retainPath: String?, hint: String?)] = []
        var leakedAttempts: [(typeName: String, leakedAttempts: Int)] = []
        // Each survivor is searched for from the others too: one leaked object often holds the rest.
        let alive = positions.compactMap { position -> AnyObject? in
            if case .leaked = position.fate { return position.reference.object }
            return nil
        }
        var records: [CheckRecord] = []
        for position in positions {
            let reference = position.reference
            var record = self.record(for: reference.typeName, context: context, waited: position.fate.waited)
            if attempts.count > 1 {
                record.attempts = attempts.count
                record.leakedAttempts = position.leakedAttempts
            }
            switch position.fate {
            case .deallocated:
                record.outcome = .deallocated
            case let .lateRelease(waited):
                record.outcome = .lateRelease
                record.message = LeakMessage.lateRelease(reference.typeName, waited: waited, timeout: context.timeouts.resolvedTimeout)
                IssueReporter.record(record.message!, severity: .warning, at: context.location, in: testCase)
            case let .leaked(waited):
                record.outcome = .leaked
                var explanation: String?
                var hint: String?
                if let survivor = reference.object {
                    let path = findRetainPath(to: survivor, roots: roots + alive.filter { $0 !== survivor })
                    record.retainPath = path.steps
                    record.fingerprint = path.fingerprint
                    explanation = path.readable
                    hint = path.hint
                }
                survivors.append((reference.typeName, waited, explanation, hint))
                leakedAttempts.append((reference.typeName, position.leakedAttempts))
            }
            records.append(record)
        }
        guard !survivors.isEmpty else { return (records, nil) }
        var message = LeakMessage.leaked(survivors, groupSize: positions.count, timeouts: context.timeouts)
        if attempts.count > 1 {
            message += "\n" + LeakMessage.attempts(leakedAttempts, of: attempts.count, groupSize: positions.count)
        }
        for index in records.indices where records[index].outcome == .leaked {
            records[index].message = message
        }
        return (records, message)
    }

    /// Reports a check that could not run to its end: an issue, and an `error` report line.
    static func reportError(_ message: String, typeName: String, context: CheckContext, testCase: AnyObject? = nil) {
        IssueReporter.record(message, severity: .error, at: context.location, in: testCase)
        var record = record(for: typeName, context: context, waited: .zero)
        record.outcome = .error
        record.message = message
        ReportSink.record(record)
    }

    private static func record(for typeName: String, context: CheckContext, waited: Duration) -> CheckRecord {
        CheckRecord(
            scenario: context.scenario, file: context.location.reportedFile, line: context.location.line,
            type: typeName, outcome: .deallocated, waitedMs: waited.milliseconds,
            timeoutMs: Int(context.timeouts.resolvedTimeout.milliseconds), lifecycle: context.lifecycle)
    }
}
