import LeakReport

/// The part of every check after the objects are released: wait for them, then report what
/// happened — issues at the caller's location, and one report line per object.
enum DeallocationCheck {
    /// Waits (yielding and sleeping) for `references` and reports their fates.
    static func verify(
        _ references: [WeakReference], context: CheckContext, roots: [Any] = [], testCase: AnyObject? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        var poller = ReleasePoller(references, timeouts: context.timeouts)
        let fates = await poller.run()
        await report(fates, of: references, context: context, roots: roots, testCase: testCase)
    }

    /// Waits (pumping the run loop) for `references` and reports their fates. XCTest only.
    static func verifyPumpingRunLoop(_ references: [WeakReference], context: CheckContext, roots: [Any] = [], testCase: AnyObject? = nil) {
        var poller = ReleasePoller(references, timeouts: context.timeouts)
        let fates = poller.runPumpingRunLoop()
        let outcome = judge(fates, of: references, context: context, roots: roots, testCase: testCase)
        if let leak = outcome.leakMessage {
            IssueReporter.recordLeakOutsideSwiftTesting(leak, at: context.location, in: testCase)
        }
        outcome.records.forEach(ReportSink.record)
    }

    /// Reports each object's fate: issues at the caller's location, one report line per object.
    /// A leak recorded inside `withKnownIssue` is marked `knownIssue` in its lines.
    static func report(
        _ fates: [ReleasePoller.Fate], of references: [WeakReference], context: CheckContext, roots: [Any] = [],
        testCase: AnyObject?, isolation: isolated (any Actor)? = #isolation
    ) async {
        var outcome = judge(fates, of: references, context: context, roots: roots, testCase: testCase)
        if let leak = outcome.leakMessage,
           await IssueReporter.recordLeak(leak, at: context.location, in: testCase) {
            for index in outcome.records.indices where outcome.records[index].outcome == .leaked {
                outcome.records[index].knownIssue = true
            }
        }
        outcome.records.forEach(ReportSink.record)
    }

    /// The report lines of a check and the message of its leak, if any. A leaked object is still
    /// alive here, so what holds it is searched for (a cycle back to it, or a path from `roots` or from the other survivors)
    /// and named in the message and the lines, with the leak's fingerprint. Late releases are
    /// recorded as warnings here; the leak is left to the caller, which knows how to wait.
    private static func judge(
        _ fates: [ReleasePoller.Fate], of references: [WeakReference], context: CheckContext, roots: [Any],
        testCase: AnyObject?
    ) -> (records: [CheckRecord], leakMessage: String?) {
        var survivors: [(typeName: String, waited: Duration, retainPath: String?, hint: String?)] = []
        // Each survivor is searched for from the others too: one leaked object often holds the rest.
        let alive = zip(references, fates).compactMap { reference, fate -> AnyObject? in
            if case .leaked = fate { return reference.object }
            return nil
        }
        var records: [CheckRecord] = []
        for (reference, fate) in zip(references, fates) {
            var record = self.record(for: reference.typeName, context: context, waited: fate.waited)
            switch fate {
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
            }
            records.append(record)
        }
        guard !survivors.isEmpty else { return (records, nil) }
        let message = LeakMessage.leaked(survivors, groupSize: references.count, timeouts: context.timeouts)
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
