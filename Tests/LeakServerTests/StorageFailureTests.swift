@testable import LeakServer
import LeakStore
import Testing

/// Storage failures a client should hear about get their own status, whatever the engine; the
/// rest stay a logged 500. (`make crash-test` fills a real disk under the server binary; the
/// engines' own codes are mapped in LeakStoreTests.)
@Suite("Storage failures")
struct StorageFailureTests {
    @Test("A full disk is 507 storage_full and says nothing was stored")
    func fullDisk() {
        let failure = LeakStoreError.full("database or disk is full")
        #expect(failure.status == 507)
        #expect(failure.code == "storage_full")
        #expect(failure.message.contains("disk is full"))
        #expect(failure.message.contains("nothing from this request was stored"))
    }

    @Test("A busy or unreachable database is 503 with Retry-After", arguments: [
        LeakStoreError.busy("database is locked"), .unavailable("connection refused"),
    ])
    func retryLater(_ failure: LeakStoreError) {
        #expect(failure.status == 503)
        #expect(failure.headers["Retry-After"] != nil)
        #expect(failure.message.contains("nothing from this request was stored"))
        #expect(!failure.message.contains("refused") && !failure.message.contains("locked"), "engine details stay in the log")
    }
}
