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
/// recorded at this call's location. Every check appends a line to the leak report.
///
/// - Parameters:
///   - lifecycle: what to do with the object before releasing it; `.none` by default.
///   - timeout: how long to wait; default from the test's trait, else 2 s.
///   - gracePeriod: how much longer a late release is a warning; default from the trait, else 3 s.
///   - afterRelease: clears legitimate holders (a cache) after the release, before the check.
///   - make: creates the object under check. Its errors are rethrown.
public func expectDeallocation<Object: AnyObject>(
    _ lifecycle: DeallocationLifecycle<Object> = .none,
    timeout: Duration? = nil,
    gracePeriod: Duration? = nil,
    roots: [Any] = [],
    afterRelease: () async -> Void = {},
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column, function: StaticString = #function,
    _ make: () async throws -> Object
) async rethrows {
    let context = CheckContext(
        location: CallerLocation(fileID, filePath, line, column, function), lifecycle: lifecycle.name,
        timeouts: DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod).over(.current))
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
    roots: [Any] = [],
    afterRelease: () async -> Void = {},
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column, function: StaticString = #function,
    _ make: () async throws -> [AnyObject]
) async rethrows {
    let context = CheckContext(
        location: CallerLocation(fileID, filePath, line, column, function),
        timeouts: DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod).over(.current))
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
    roots: [Any] = [],
    afterRelease: () async -> Void = {},
    isolation: isolated (any Actor)? = #isolation,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column, function: StaticString = #function
) async {
    let context = CheckContext(
        location: CallerLocation(fileID, filePath, line, column, function), lifecycle: "resolved",
        timeouts: DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod).over(.current))
    guard let reference = resolveReference(service, from: container, context: context) else { return }
    await afterRelease()
    // What the container still holds is searched for from the container itself.
    await DeallocationCheck.verify([reference], context: context, roots: roots + [container])
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
    let created = try await makeAndRelease(make, lifecycle: lifecycle)
    switch created {
    case let .success(reference):
        await afterRelease()
        await DeallocationCheck.verify([reference], context: context, roots: roots, testCase: testCase)
    case let .failure(failure):
        DeallocationCheck.reportError(
            LeakMessage.lifecycleThrew(failure.typeName, lifecycle: lifecycle.name, error: failure.error),
            typeName: failure.typeName, context: context, testCase: testCase)
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
    await DeallocationCheck.verify(references, context: context, roots: roots, testCase: testCase)
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
