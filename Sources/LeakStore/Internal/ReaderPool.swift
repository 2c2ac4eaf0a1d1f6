import Foundation
import Synchronization

/// Read-only connections, opened on demand up to a limit and reused; a caller that finds all of
/// them busy waits for one to come back.
final class ReaderPool: Sendable {
    private struct State {
        var idle: [SQLiteConnection] = []
        var opened = 0
    }

    private let path: String
    private let limit: Int
    private let busyTimeoutMs: Int32
    private let state = Mutex(State())
    private let available: DispatchSemaphore

    init(path: String, limit: Int, busyTimeoutMs: Int32) {
        self.path = path
        self.limit = limit
        self.busyTimeoutMs = busyTimeoutMs
        available = DispatchSemaphore(value: limit)
    }

    func withReader<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        available.wait()
        defer { available.signal() }
        let reader = try checkOut()
        defer { state.withLock { $0.idle.append(reader) } }
        return try body(reader)
    }

    private func checkOut() throws -> SQLiteConnection {
        if let reader = state.withLock({ $0.idle.popLast() }) { return reader }
        let reader = try SQLiteConnection(path: path, mode: .readOnly, busyTimeoutMs: busyTimeoutMs)
        try reader.execute("PRAGMA query_only = ON")
        state.withLock { $0.opened += 1 }
        return reader
    }
}
