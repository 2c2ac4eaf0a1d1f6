import CSQLite
@testable import LeakServer
@testable import LeakStore
import Testing

/// Storage failures a client should hear about get their own status; the rest stay a logged 500.
/// (`make crash-test` fills a real disk under the server binary.)
@Suite("Storage failures")
struct StorageFailureTests {
    @Test("A full disk is 507 storage_full and says nothing was stored")
    func fullDisk() throws {
        let failure = try #require(SQLiteError(code: SQLITE_FULL, message: "database or disk is full", sql: "INSERT …").httpFailure)
        #expect(failure.status == 507)
        #expect(failure.code == "storage_full")
        #expect(failure.message.contains("disk is full"))
        #expect(failure.message.contains("nothing from this request was stored"))
    }

    @Test("A busy database is 503 with Retry-After")
    func busy() throws {
        let failure = try #require(SQLiteError(code: SQLITE_BUSY | (2 << 8), message: "database is locked", sql: nil).httpFailure)
        #expect(failure.status == 503)
        #expect(failure.headers["Retry-After"] == "1")
    }

    @Test("Any other SQLite error stays an internal error", arguments: [SQLITE_CONSTRAINT | (8 << 8), SQLITE_IOERR | (3 << 8), SQLITE_CORRUPT])
    func others(_ code: Int32) {
        #expect(SQLiteError(code: code, message: "", sql: nil).httpFailure == nil)
    }
}
