#if canImport(XCTest)
import XCTest

/// Deallocation checks for XCTest. Inside a test case these methods are found before the free
/// functions, so the same calls work in XCTest and Swift Testing; failures are recorded on this
/// test case at the caller's line, and scenario ids are `TestCaseType/testName()`.
extension XCTestCase {
    /// Checks that the object `make` returns is deallocated once released, confirming a leak in
    /// `attempts`; see the free `expectDeallocation(_:timeout:gracePeriod:attempts:roots:afterRelease:_:)`.
    ///
    /// ```swift
    /// func testViewModel() async { await expectDeallocation { ProfileViewModel() } }
    /// ```
    public func expectDeallocation<Object: AnyObject>(
        _ lifecycle: DeallocationLifecycle<Object> = .none,
        timeout: Duration? = nil,
        gracePeriod: Duration? = nil,
        attempts: Int? = nil,
        roots: [Any] = [],
        afterRelease: () async -> Void = {},
        isolation: isolated (any Actor)? = #isolation,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function,
        _ make: () async throws -> Object
    ) async rethrows {
        let context = checkContext(
            CallerLocation(fileID, filePath, line, column, function), lifecycle: lifecycle.name,
            DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod), attempts: attempts)
        try await checkDeallocation(of: make, lifecycle: lifecycle, roots: roots, afterRelease: afterRelease, context: context, testCase: self)
    }

    /// Checks that every object `make` returns is deallocated once released.
    public func expectDeallocation(
        timeout: Duration? = nil,
        gracePeriod: Duration? = nil,
        attempts: Int? = nil,
        roots: [Any] = [],
        afterRelease: () async -> Void = {},
        isolation: isolated (any Actor)? = #isolation,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function,
        _ make: () async throws -> [AnyObject]
    ) async rethrows {
        let context = checkContext(
            CallerLocation(fileID, filePath, line, column, function), lifecycle: "none",
            DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod), attempts: attempts)
        try await checkDeallocation(ofGroup: make, roots: roots, afterRelease: afterRelease, context: context, testCase: self)
    }

    /// The synchronous form, for tests that are not `async`: pumps the current run loop while it
    /// waits, so timers and main-queue blocks that release the object still run. A leak is
    /// confirmed with fresh objects from `make`, as the async form does.
    ///
    /// ```swift
    /// func testClosesCleanly() { assertDeallocation { Foo() } }
    /// ```
    public func assertDeallocation<Object: AnyObject>(
        timeout: Duration? = nil,
        gracePeriod: Duration? = nil,
        attempts: Int? = nil,
        roots: [Any] = [],
        afterRelease: () -> Void = {},
        fileID: StaticString = #fileID, filePath: StaticString = #filePath,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function,
        _ make: () throws -> Object
    ) rethrows {
        let context = checkContext(
            CallerLocation(fileID, filePath, line, column, function), lifecycle: "none",
            DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod), attempts: attempts)
        let reference = try WeakReference(make())
        afterRelease()
        try DeallocationCheck.verifyPumpingRunLoop([reference], context: context, roots: roots, testCase: self) {
            let reference = try WeakReference(make())
            afterRelease()
            return [reference]
        }
    }

    /// Returns `object` and checks at tear-down that it was deallocated, pumping the run loop
    /// while it waits. The object was made by the test, so the check has one attempt.
    ///
    /// ```swift
    /// func testLoads() { let sut = trackForDeallocation(Loader()); sut.load() }
    /// ```
    @discardableResult
    public func trackForDeallocation<Object: AnyObject>(
        _ object: Object,
        timeout: Duration? = nil,
        gracePeriod: Duration? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath,
        line: UInt = #line, column: UInt = #column, function: StaticString = #function
    ) -> Object {
        let context = checkContext(
            CallerLocation(fileID, filePath, line, column, function), lifecycle: "none",
            DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod), attempts: nil, repeatable: false)
        addTeardownBlock(deallocationTeardown(WeakReference(object), context: context))
        return object
    }

    /// The tear-down check of `reference`. `@Sendable`, capturing no test case strongly: Xcode's
    /// XCTest takes tear-down blocks as `@Sendable @MainActor` (where this value converts to that
    /// overload, not the async one), and `XCTestCase` is not `Sendable`; the test case travels in
    /// a weak box, read by the block on the thread XCTest runs it on. The object was made by the
    /// test, so the check has one attempt.
    func deallocationTeardown(_ reference: WeakReference, context: CheckContext) -> @Sendable () -> Void {
        let testCase = WeakReference(self)
        return {
            DeallocationCheck.verifyPumpingRunLoop([reference], context: context, testCase: testCase.object) { nil }
        }
    }

    /// The context of a check made on this test case: its `DeallocationCheckConfiguring` fills in
    /// what the call leaves out. A check that cannot be repeated has one attempt.
    private func checkContext(
        _ location: CallerLocation, lifecycle: String, _ timeouts: DeallocationTimeouts, attempts: Int?,
        repeatable: Bool = true
    ) -> CheckContext {
        let configuring = self as? DeallocationCheckConfiguring
        let configured = configuring?.deallocationTimeouts ?? DeallocationTimeouts()
        return CheckContext(
            location: location, scenario: "\(String(describing: type(of: self)))/\(location.function)",
            lifecycle: lifecycle, timeouts: timeouts.over(configured),
            attempts: repeatable ? ConfirmationAttempts.count(call: attempts, configured: configuring?.deallocationAttempts) : 1)
    }
}
#endif
