#if canImport(Testing)
import Testing

/// A trait that checks, when each test ends, that every object it passed to
/// `trackForDeallocation` was deallocated; it also sets the timeouts of the test's
/// `expectDeallocation` calls, and how many attempts confirm their leaks.
///
/// ```swift
/// @Suite(.checksDeallocation) struct ProfileTests {
///     @Test func loads() async { let vm = trackForDeallocation(ViewModel()); await vm.load() }
/// }
/// @Test(.checksDeallocation(timeout: .milliseconds(300))) func closes() { … }
/// @Suite(.checksDeallocation(attempts: 5)) struct FlakyScreenTests { … }
/// ```
/// Tracked objects were made by the test, so their checks have one attempt.
/// On a suite it applies to every test inside, recursively, and to each case of a
/// parameterised test. A test's own trait wins over its suite's.
public struct DeallocationCheckTrait: TestTrait, SuiteTrait, TestScoping {
    public var timeouts: DeallocationTimeouts
    /// How many times an `expectDeallocation` whose object leaked runs in all; nil leaves it to
    /// the suite's trait, then `LEAKHISTORY_ATTEMPTS`, then 3.
    public var attempts: Int?

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> DeallocationCheckTrait? {
        // One scope per test case: each case of a parameterised test is checked on its own.
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let timeouts = self.timeouts.over(DeallocationTimeouts.current)
        let tracker = DeallocationTracker()
        let outcome: Result<Void, any Error>
        do {
            try await DeallocationTimeouts.$current.withValue(timeouts) {
                try await ConfirmationAttempts.$configured.withValue(attempts ?? ConfirmationAttempts.configured) {
                    try await DeallocationTracker.$current.withValue(tracker) {
                        try await function()
                    }
                }
            }
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await tracker.verifyAll()
        try outcome.get()
    }
}

extension Trait where Self == DeallocationCheckTrait {
    /// Checks objects passed to `trackForDeallocation` when the test ends (timeout 2 s, grace 3 s).
    public static var checksDeallocation: DeallocationCheckTrait {
        DeallocationCheckTrait(timeouts: DeallocationTimeouts())
    }

    /// Checks objects passed to `trackForDeallocation` when the test ends, and sets the default
    /// timeout, grace period and confirmation attempts of every deallocation check in the test.
    public static func checksDeallocation(
        timeout: Duration? = nil, gracePeriod: Duration? = nil, attempts: Int? = nil
    ) -> DeallocationCheckTrait {
        DeallocationCheckTrait(timeouts: DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod), attempts: attempts)
    }
}
#endif
