import Foundation
import LeakCheck

/// Shapes the tests check: clean ones that must pass and leaking ones that must fail.
final class CleanObject {}

/// Keeps itself alive through a stored closure that captures self.
final class SelfCapturingClosure {
    var onDone: (() -> Void)?
    init() { onDone = { _ = self } }
}

/// A delegate that holds its owner strongly, and the owner holds the delegate: a cycle.
final class StrongDelegateOwner {
    var delegate: StrongDelegate?
    init() {
        let delegate = StrongDelegate()
        delegate.owner = self
        self.delegate = delegate
    }
}

final class StrongDelegate {
    var owner: StrongDelegateOwner?
}

/// A parent that holds its children in an array, each holding the parent back strongly.
final class Parent {
    var children: [Child] = []
    init(childCount: Int) {
        children = (0..<childCount).map { _ in Child() }
        children.forEach { $0.parent = self }
    }
}

final class Child {
    var parent: Parent?
}

/// A cache: a legitimate holder that `afterRelease` clears. Each test makes its own, since
/// tests run in parallel.
final class Cache: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [AnyObject] = []

    func insert(_ item: AnyObject) { lock.withLock { items.append(item) } }
    func removeAll() { lock.withLock { items.removeAll() } }
}

final class Cached {
    init(in cache: Cache) { cache.insert(self) }
}

/// Released by a task some time after its creation: a late release, not a leak.
final class ReleasedLater {
    /// Keeps the object alive for `delay`, then lets go of it. On a Dispatch queue, not a task:
    /// on a 2-core machine the cooperative pool has 2 threads, and tests that block them (server
    /// and browser tests waiting on sockets) would hold the release back past any grace period.
    static func make(releasedAfter delay: Duration) -> ReleasedLater {
        let object = ReleasedLater()
        let box = UncheckedBox(object)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(delay / .milliseconds(1)))) {
            withExtendedLifetime(box) {}
        }
        return object
    }
}

/// Moves a non-Sendable value into a task that only keeps it alive.
final class UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

struct LoaderError: Error {}

final class Loader {
    var loaded = false
    func load() async { loaded = true }
    func fail() async throws { throw LoaderError() }
}

protocol APIManaging: AnyObject {}
final class API: APIManaging {}
struct ValueAPI {}

/// A container that hands out what it was given: a singleton or a fresh instance each time.
final class TestContainer: DependencyResolving {
    var singleton: Any?
    var factory: (() -> Any)?

    func resolve<Service>(_ type: Service.Type) -> Service? {
        if let singleton { return singleton as? Service }
        return factory?() as? Service
    }
}

/// A factory whose objects something keeps alive, except its `released` ones (counted from 0,
/// in the order made), which a queued block lets go of at once: a leak in some attempts only,
/// the same ones every run. Each test makes its own, since tests run in parallel.
final class SometimesHeld: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [ObjectIdentifier: AnyObject] = [:]
    private var count = 0
    let released: Set<Int>

    init(released: Set<Int> = []) {
        self.released = released
    }

    /// How many objects the factory made.
    var made: Int { lock.withLock { count } }

    func make() -> CleanObject {
        let object = CleanObject()
        let key = ObjectIdentifier(object)
        let index = lock.withLock {
            held[key] = object
            defer { count += 1 }
            return count
        }
        if released.contains(index) {
            // On a Dispatch queue, not a task (see `ReleasedLater`).
            DispatchQueue.global().async { self.lock.withLock { self.held[key] = nil } }
        }
        return object
    }
}
