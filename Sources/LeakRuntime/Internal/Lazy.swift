/// A value computed on first use, once, safely from any thread.
package final class Lazy<Value: Sendable>: Sendable {
    private let state = Locked<Value?>(nil)
    private let make: @Sendable () -> Value

    package init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    package var value: Value {
        state.withLock { stored in
            if let stored { return stored }
            let made = make()
            stored = made
            return made
        }
    }
}

/// Runs a block the first time only.
package final class Once: Sendable {
    private let done = Locked(false)

    package init() {}

    package func run(_ body: () -> Void) {
        let first = done.withLock { done in
            defer { done = true }
            return !done
        }
        if first { body() }
    }
}
