import Foundation
import Synchronization

/// Read-only connections, opened on demand up to a limit and reused; a caller that finds all of
/// them busy waits for one to come back.
final class SQLiteReaderPool: Sendable {
    private let path: String
    private let limit: Int
    private let busyTimeoutMs: Int32
    private let budget: Duration?
    private let memoryMapBytes: Int64
    private let idle = Mutex<[SQLiteConnection]>([])
    private let available: DispatchSemaphore

    init(path: String, limit: Int, busyTimeoutMs: Int32, memoryMapBytes: Int64, budget: Duration?) {
        self.budget = budget
        self.memoryMapBytes = memoryMapBytes
        self.path = path
        self.limit = limit
        self.busyTimeoutMs = busyTimeoutMs
        available = DispatchSemaphore(value: limit)
    }

    func withReader<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        available.wait()
        defer { available.signal() }
        let reader = try checkOut()
        defer { idle.withLock { $0.append(reader) } }
        reader.memory?.beginRead(session: 0)
        reader.setDeadline(budget.map { ContinuousClock.now + $0 })
        defer { reader.setDeadline(nil) }
        return try body(reader)
    }

    private func checkOut() throws -> SQLiteConnection {
        if let reader = idle.withLock({ $0.popLast() }) { return reader }
        let reader = try SQLiteConnection(path: path, mode: .readOnly, busyTimeoutMs: busyTimeoutMs)
        try reader.execute("PRAGMA query_only = ON")
        // `StoreOptions.readerMemoryMapBytes`. A PRAGMA takes no parameter; the value is an integer.
        try reader.execute("PRAGMA mmap_size = \(memoryMapBytes)")
        return reader
    }
}
