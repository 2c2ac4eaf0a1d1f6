/// Checks that the object `make` returns is deallocated once released.
///
/// ```swift
/// @Test func viewModel() async {
///     await expectDeallocation { ProfileViewModel(api: MockAPI()) }
/// }
/// await expectDeallocation(.custom { loader in await loader.load() }, timeout: .milliseconds(300)) { Loader() }
/// ```
/// The object is created, taken through `lifecycle`, released, `afterRelease` runs, and then
/// its weak reference is checked at once and polled until `timeout`. Still alive then, it gets
/// `gracePeriod` more: going during grace is a late release (a warning); outliving it is a leak,
/// recorded at this call's location. A leak is confirmed first: the check runs again with fresh
/// objects from `make` and `lifecycle` (`attempts` in all), released and then waited for together,
/// so confirming costs one more wait, whatever the number of attempts. A leak that some attempt
/// released is reported as intermittent ("leaked in 1 of 3 attempts: intermittent"): it still
/// fails the test, as any leak does. Every check appends a line to the leak report, with its
/// attempts when it ran more than once.
///
/// - Parameters:
///   - lifecycle: what to do with the object before releasing it; `.none` by default.
///   - timeout: how long to wait; default from the test's trait, else 2 s.
///   - gracePeriod: how much longer a late release is a warning; default from the trait, else 3 s.
///   - attempts: how many times a check whose object leaked runs in all; default from the trait,
///     else `LEAKHISTORY_ATTEMPTS`, else 3. 1 runs it once.
///   - afterRelease: clears legitimate holders (a cache) after the release, before the check.
///   - make: creates the object under check. Its errors are rethrown.
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
    let context = CheckContext(
        location: CallerLocation(fileID, filePath, line, column, function), lifecycle: lifecycle.name,
        timeouts: DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod).over(.current),
        attempts: ConfirmationAttempts.count(call: attempts))
    try await checkDeallocation(of: make, lifecycle: lifecycle, roots: roots, afterRelease: afterRelease, context: context)
}

/// Checks that every object `make` returns is deallocated once released: a module built whole
/// (view, presenter, interactor) must go with its root. The failure lists each survivor.
///
/// ```swift
/// await expectDeallocation { () -> [AnyObject] in
///     let module = factory.makeAndExpose(); return [module.view, module.presenter, module.interactor]
/// }
/// ```
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
    let context = CheckContext(
        location: CallerLocation(fileID, filePath, line, column, function),
        timeouts: DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod).over(.current),
        attempts: ConfirmationAttempts.count(call: attempts))
    try await checkDeallocation(ofGroup: make, roots: roots, afterRelease: afterRelease, context: context)
}

/// Resolves `service` from `container` and checks that what it hands out is deallocated once
/// released: catches a service registered with a lifetime longer than intended.
///
/// ```swift
/// await expectDeallocation(of: APIManaging.self, resolvedFrom: container)
/// ```
/// A container that resolves nothing, or a value type, is reported as an error.
public func expectDeallocation<Service>(
    of service: Service.Type,
    resolvedFrom container: some DependencyResolving,
    timeout: Duration? = nil,
    gracePeriod: Duration? = nil,
    attempts: Int? = nil,
    roots: [Any] = [],
    afterRelease: () async -> Void = {},
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column, function: StaticString = #function
) async {
    let context = CheckContext(
        location: CallerLocation(fileID, filePath, line, column, function), lifecycle: "resolved",
        timeouts: DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod).over(.current),
        attempts: ConfirmationAttempts.count(call: attempts))
    guard let reference = resolveReference(service, from: container, context: context) else { return }
    await afterRelease()
    // What the container still holds is searched for from the container itself. Each attempt
    // resolves the service again: a container that keeps handing out one instance leaks it in all.
    await DeallocationCheck.verify([reference], context: context, roots: roots + [container]) {
        guard let reference = resolveReference(service, from: container, context: context) else { return nil }
        await afterRelease()
        return [reference]
    }
}

// MARK: - Shared by the free functions and the XCTestCase methods

func checkDeallocation<Object: AnyObject>(
    of make: () async throws -> Object,
    lifecycle: DeallocationLifecycle<Object>,
    roots: [Any],
    afterRelease: () async -> Void,
    context: CheckContext,
    testCase: AnyObject? = nil,
    isolation: isolated (any Actor)? = #isolation
) async rethrows {
    guard let first = try await attempt(make, lifecycle: lifecycle, afterRelease: afterRelease, context: context,
                                        testCase: testCase)
    else { return }
    try await DeallocationCheck.verify(first, context: context, roots: roots, testCase: testCase) {
        try await attempt(make, lifecycle: lifecycle, afterRelease: afterRelease, context: context, testCase: testCase)
    }
}

/// One attempt of a check: the object made, taken through its lifecycle, released, then
/// `afterRelease`; nil after reporting a lifecycle that threw.
private func attempt<Object: AnyObject>(
    _ make: () async throws -> Object,
    lifecycle: DeallocationLifecycle<Object>,
    afterRelease: () async -> Void,
    context: CheckContext,
    testCase: AnyObject?,
    isolation: isolated (any Actor)? = #isolation
) async rethrows -> [WeakReference]? {
    switch try await makeAndRelease(make, lifecycle: lifecycle) {
    case let .success(reference):
        await afterRelease()
        return [reference]
    case let .failure(failure):
        DeallocationCheck.reportError(
            LeakMessage.lifecycleThrew(failure.typeName, lifecycle: lifecycle.name, error: failure.error),
            typeName: failure.typeName, context: context, testCase: testCase)
        return nil
    }
}

func checkDeallocation(
    ofGroup make: () async throws -> [AnyObject],
    roots: [Any],
    afterRelease: () async -> Void,
    context: CheckContext,
    testCase: AnyObject? = nil,
    isolation: isolated (any Actor)? = #isolation
) async rethrows {
    let references = try await makeAndReleaseGroup(make)
    await afterRelease()
    try await DeallocationCheck.verify(references, context: context, roots: roots, testCase: testCase) {
        let references = try await makeAndReleaseGroup(make)
        await afterRelease()
        return references
    }
}

/// A lifecycle that threw: the check reports it as an error, not as a leak.
struct LifecycleFailure: Error {
    var typeName: String
    var error: any Error
}

/// Creates the object, takes it through its lifecycle and lets go of it. The strong reference
/// lives only in this frame, so nothing of the check's own keeps the object alive afterwards.
private func makeAndRelease<Object: AnyObject>(
    _ make: () async throws -> Object,
    lifecycle: DeallocationLifecycle<Object>,
    isolation: isolated (any Actor)? = #isolation
) async rethrows -> Result<WeakReference, LifecycleFailure> {
    let object = try await make()
    let reference = WeakReference(object)
    do {
        try await lifecycle.run(object)
    } catch {
        return .failure(LifecycleFailure(typeName: reference.typeName, error: error))
    }
    return .success(reference)
}

private func makeAndReleaseGroup(
    _ make: () async throws -> [AnyObject],
    isolation: isolated (any Actor)? = #isolation
) async rethrows -> [WeakReference] {
    try await make().map(WeakReference.init)
}

/// The resolved instance as a weak reference, or nil after reporting why there is none.
private func resolveReference<Service>(
    _ service: Service.Type, from container: some DependencyResolving, context: CheckContext
) -> WeakReference? {
    let serviceName = String(reflecting: service)
    guard let resolved = container.resolve(service) else {
        DeallocationCheck.reportError(LeakMessage.resolvedNothing(serviceName), typeName: serviceName, context: context)
        return nil
    }
    let dynamicType = type(of: resolved as Any)
    guard dynamicType is AnyObject.Type else {
        DeallocationCheck.reportError(
            LeakMessage.resolvedValueType(serviceName, valueType: String(reflecting: dynamicType)),
            typeName: String(reflecting: dynamicType), context: context)
        return nil
    }
    return WeakReference(resolved as AnyObject)
}
