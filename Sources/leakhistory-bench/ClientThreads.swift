import Dispatch
import Foundation
import Synchronization

/// Runs `body(index)` on `count` threads of their own and waits for all of them. Dedicated
/// threads rather than `concurrentPerform`, whose width is the core count: a client blocked
/// on a socket must not keep another client from sending.
func onClientThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            body(index)
            done.signal()
        }
        thread.start()
    }
    for _ in 0..<count { done.wait() }
}

/// A value shared between client threads behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}
