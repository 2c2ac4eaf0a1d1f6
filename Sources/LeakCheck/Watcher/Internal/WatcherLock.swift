import Foundation

/// A value behind an `NSLock`. (`Synchronization.Mutex` would need macOS 15 on Apple platforms.)
final class WatcherLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
