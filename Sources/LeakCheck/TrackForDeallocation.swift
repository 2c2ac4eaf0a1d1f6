/// Returns `object` and checks, when the test ends, that it was deallocated.
///
/// ```swift
/// @Test(.checksDeallocation) func loads() async {
///     let viewModel = trackForDeallocation(ViewModel())
///     await viewModel.load()
/// }
/// ```
/// Needs the `.checksDeallocation` trait on the test or its suite; without it, an issue says how
/// to add it. In an `XCTestCase`, the test case's own `trackForDeallocation` is used instead.
@discardableResult
public func trackForDeallocation<Object: AnyObject>(
    _ object: Object,
    timeout: Duration? = nil,
    gracePeriod: Duration? = nil,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column, function: StaticString = #function
) -> Object {
    let location = CallerLocation(fileID, filePath, line, column, function)
    guard let tracker = DeallocationTracker.current else {
        IssueReporter.record(
            LeakMessage.trackedWithoutTrait(String(reflecting: type(of: object))), severity: .error, at: location)
        return object
    }
    tracker.track(object, context: CheckContext(
        location: location,
        timeouts: DeallocationTimeouts(timeout: timeout, gracePeriod: gracePeriod).over(.current)))
    return object
}
