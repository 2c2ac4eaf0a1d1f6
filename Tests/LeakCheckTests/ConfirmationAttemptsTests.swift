import Foundation
import LeakReport
import Testing
@testable import LeakCheck
@testable import LeakRuntime

/// Runs `body` and returns each wait its checks made, as the fates the wait decided.
func capturingWaits(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
) async rethrows -> [[ReleasePoller.Fate]] {
    let waits = Locked<[[ReleasePoller.Fate]]>([])
    try await DeallocationCheck.$waits.withValue(waits) { try await body() }
    return waits.withLock { $0 }
}

extension ReleasePoller.Fate {
    var isLeak: Bool { if case .leaked = self { true } else { false } }
}

/// A check whose object leaks runs again with fresh objects: a real leak leaks in every
/// attempt, an intermittent one in some, and confirming costs one more wait whatever the count.
@Suite struct ConfirmationAttemptsTests {
    static let timeout = Duration.milliseconds(100)
    /// Long enough for a queued block to release an object on a loaded machine (tests run in
    /// parallel on two cores): a release after `timeout` is late, not a leak, and still releases
    /// the attempt.
    static let gracePeriod = Duration.seconds(2)

    /// The default count, 3, when CI sets none.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[ConfirmationAttempts.variable] == nil))
    func aDeterministicLeakLeaksInEveryAttempt() async throws {
        let factory = SometimesHeld()
        var waits: [[ReleasePoller.Fate]] = []
        let records = await capturingRecords {
            waits = await capturingWaits {
                await withKnownIssue {
                    await expectDeallocation(timeout: Self.timeout, gracePeriod: .zero) { factory.make() }
                } matching: { issue in
                    issue.severity == .error && "\(issue)".contains("It leaked in 3 of 3 attempts: confirmed")
                }
            }
        }
        #expect(factory.made == 3)
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.outcome == .leaked)
        #expect(record.attempts == 3)
        #expect(record.leakedAttempts == 3)
        #expect(!record.isIntermittent)
        // The first wait saw the leak; the other two attempts were waited for together.
        #expect(waits.map(\.count) == [1, 2])
        #expect(waits.allSatisfy { $0.allSatisfy(\.isLeak) })
    }

    @Test(arguments: [
        // (objects a queued block releases, leaked attempts): the first attempt leaks, or it
        // would not be confirmed at all.
        (Set([1]), 2),
        (Set([1, 2]), 1),
    ])
    func aLeakThatSomeAttemptsReleaseIsIntermittent(released: Set<Int>, leaked: Int) async throws {
        let factory = SometimesHeld(released: released)
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: Self.timeout, gracePeriod: Self.gracePeriod, attempts: 3) { factory.make() }
            } matching: { issue in
                issue.severity == .error && "\(issue)".contains("It leaked in \(leaked) of 3 attempts: intermittent")
                    && "\(issue)".contains("LeakCheckTests.CleanObject was not deallocated")
            }
        }
        #expect(factory.made == 3)
        let record = try #require(records.first)
        #expect(records.count == 1)
        #expect(record.outcome == .leaked)
        #expect(record.attempts == 3)
        #expect(record.leakedAttempts == leaked)
        #expect(record.isIntermittent)
        #expect(record.message?.contains("leaked in \(leaked) of 3 attempts: intermittent") == true)
    }

    /// Report-only mode: an intermittent leak is a warning, as every leak is, worded as intermittent.
    @Test func anIntermittentLeakIsAWarningInReportOnlyMode() async throws {
        let factory = SometimesHeld(released: [1, 2])
        let issues = await recordingIssues {
            await ReportOnlyMode.$override.withValue(true) {
                await expectDeallocation(timeout: Self.timeout, gracePeriod: Self.gracePeriod, attempts: 3) { factory.make() }
            }
        }
        #expect(issues.count == 1)
        let issue = try #require(issues.first)
        #expect(issue.severity == .warning)
        #expect("\(issue)".contains("It leaked in 1 of 3 attempts: intermittent"))
        #expect("\(issue)".contains("Report-only (LEAKHISTORY_REPORT_ONLY=1)"))
    }

    /// The structure of the cost: two waits however many attempts, not one per attempt, each
    /// ending at the deadline only because something leaked in it.
    @Test(arguments: [2, 5, 8])
    func confirmingCostsOneMoreWaitWhateverTheCount(attempts: Int) async {
        let factory = SometimesHeld()
        let waits = await capturingWaits {
            await withKnownIssue {
                await expectDeallocation(timeout: .milliseconds(30), gracePeriod: .zero, attempts: attempts) {
                    factory.make()
                }
            }
        }
        #expect(factory.made == attempts)
        #expect(waits.count == 2)
        #expect(waits.map(\.count) == [1, attempts - 1])
    }

    @Test func aCleanCheckMakesOneObjectAndWaitsOnce() async {
        let made = Locked(0)
        var waits: [[ReleasePoller.Fate]] = []
        let records = await capturingRecords {
            waits = await capturingWaits {
                await expectDeallocation(timeout: Self.timeout, gracePeriod: Self.gracePeriod, attempts: 3) {
                    made.withLock { $0 += 1 }
                    return CleanObject()
                }
            }
        }
        #expect(made.withLock { $0 } == 1)
        #expect(waits.count == 1)
        #expect(records.map(\.outcome) == [.deallocated])
        #expect(records.allSatisfy { $0.attempts == nil && $0.leakedAttempts == nil }, "a clean check ran once")
    }

    @Test func oneAttemptIsTheCheckAsItWas() async throws {
        let factory = SometimesHeld()
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: .milliseconds(30), gracePeriod: .zero, attempts: 1) { factory.make() }
            } matching: { issue in !"\(issue)".contains("attempts") }
        }
        #expect(factory.made == 1)
        #expect(records.map(\.outcome) == [.leaked])
        #expect(records.first?.attempts == nil)
        #expect(records.first?.leakedAttemptCount == 1)
    }

    @Test func aGroupCountsEachObjectsAttempts() async throws {
        let held = SometimesHeld()
        let sometimes = SometimesHeld(released: [1])
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: Self.timeout, gracePeriod: Self.gracePeriod, attempts: 3) { () -> [AnyObject] in
                    [held.make(), sometimes.make(), CleanObject()]
                }
            } matching: { issue in
                "\(issue)".contains("2 of 3 objects were not deallocated")
                    && "\(issue)".contains("LeakCheckTests.CleanObject leaked in 3 of 3 attempts: confirmed")
                    && "\(issue)".contains("LeakCheckTests.CleanObject leaked in 2 of 3 attempts: intermittent")
            }
        }
        #expect(records.map(\.outcome) == [.leaked, .leaked, .deallocated])
        #expect(records.map(\.attempts) == [3, 3, 3])
        #expect(records.map(\.leakedAttempts) == [3, 2, 0])
    }

    @Test func aContainerIsAskedAgainInEachAttempt() async throws {
        let container = TestContainer()
        container.singleton = API()
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(of: APIManaging.self, resolvedFrom: container, timeout: .milliseconds(30),
                                         gracePeriod: .zero, attempts: 3)
            }
        }
        #expect(records.map(\.outcome) == [.leaked])
        #expect(records.first?.attempts == 3)
        #expect(records.first?.leakedAttempts == 3)
    }

    /// The call's count wins over the trait's, the trait's over the environment's.
    @Test(.checksDeallocation(attempts: 2)) func theTraitSetsTheCount() async {
        let byTrait = SometimesHeld(), byCall = SometimesHeld()
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: .milliseconds(30), gracePeriod: .zero) { byTrait.make() }
                await expectDeallocation(timeout: .milliseconds(30), gracePeriod: .zero, attempts: 4) { byCall.make() }
            }
        }
        #expect(byTrait.made == 2)
        #expect(byCall.made == 4)
        #expect(records.map(\.attempts) == [2, 4])
    }

    @Test(.checksDeallocation(timeout: .milliseconds(30), gracePeriod: .zero))
    func trackedObjectsHaveOneAttempt() async {
        let factory = SometimesHeld()
        let records = await capturingRecords {
            await withKnownIssue {
                await DeallocationTracker.$current.withValue(DeallocationTracker()) {
                    trackForDeallocation(factory.make())
                    await DeallocationTracker.current?.verifyAll()
                }
            }
        }
        #expect(factory.made == 1)
        #expect(records.map(\.outcome) == [.leaked])
        #expect(records.first?.attempts == nil)
    }

    @Test(arguments: [
        ([:], nil),
        (["LEAKHISTORY_ATTEMPTS": "5"], 5),
        (["LEAKHISTORY_ATTEMPTS": " 1 "], 1),
        (["LEAKHISTORY_ATTEMPTS": ""], nil),
    ] as [([String: String], Int?)])
    func theEnvironmentSetsTheCount(environment: [String: String], count: Int?) throws {
        let read = ConfirmationAttempts.count(in: environment)
        #expect((try read?.get()) == count)
    }

    @Test func aCountTheEnvironmentCannotMeanIsNamed() {
        let read = ConfirmationAttempts.count(in: ["LEAKHISTORY_ATTEMPTS": "three"])
        guard case let .failure(notUnderstood) = read else {
            Issue.record("\"three\" was read as \(String(describing: read))")
            return
        }
        #expect(LeakMessage.attemptsNotUnderstood(notUnderstood.value).contains("LEAKHISTORY_ATTEMPTS=three is not understood"))
    }

    @Test func countsBelowOneRunOnce() {
        #expect(ConfirmationAttempts.count(call: 0) == 1)
        #expect(ConfirmationAttempts.count(call: nil, configured: -3) == 1)
        #expect(ConfirmationAttempts.count(call: 7, configured: 2) == 7)
    }
}
