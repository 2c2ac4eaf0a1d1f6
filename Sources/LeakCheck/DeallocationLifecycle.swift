/// What happens to an object between its creation and its release in a deallocation check.
///
/// ```swift
/// await expectDeallocation(.custom { loader in await loader.load() }) { Loader() }
/// ```
/// The type stays open for view lifecycles (appear, disappear) on Apple platforms.
public struct DeallocationLifecycle<Object> {
    /// What reports call this lifecycle: `none`, `custom`.
    public let name: String
    let run: (sending Object) async throws -> Void

    /// Wraps `body` under `name`. Errors it throws are reported as errors, never as leaks.
    public init(name: String, _ body: @escaping (sending Object) async throws -> Void) {
        self.name = name
        self.run = body
    }

    /// Create and release; nothing in between. The default.
    public static var none: DeallocationLifecycle<Object> {
        DeallocationLifecycle(name: "none") { _ in }
    }

    /// Runs `body` with the object before it is released, on the caller's actor. An error it
    /// throws is reported as such (outcome `error`), not as a leak.
    public static func custom(_ body: @escaping (sending Object) async throws -> Void) -> DeallocationLifecycle<Object> {
        DeallocationLifecycle(name: "custom", body)
    }
}
