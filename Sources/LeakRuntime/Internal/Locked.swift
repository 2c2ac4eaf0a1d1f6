import Foundation

/// A value behind a lock: the one lock type of LeakCheck.
///
/// ```swift
/// let entries = Locked<[Entry]>([])
/// entries.withLock { $0.append(entry) }
/// ```
/// Over `NSLock`, which every platform LeakCheck supports has: `Synchronization.Mutex` needs
/// macOS 15 / iOS 18 and `OSAllocatedUnfairLock` macOS 13 / iOS 16 with no Linux form, while
/// the package's floor is macOS 13 / iOS 16 (see `AvailabilityFloorTests`).
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
