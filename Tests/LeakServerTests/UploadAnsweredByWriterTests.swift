import Foundation
import LeakServer
@testable import LeakStore
import Synchronization
import Testing

/// An upload is answered from the database's writer once committed (`DeferredResponse`): while
/// it waits for the writer it holds no worker.
@Suite("Uploads answered by the writer")
struct UploadAnsweredByWriterTests {
    @Test func anUploadWaitingForTheWriterHoldsNoWorker() throws {
        let server = try TestServer { $0.workers = 1 }
        let store = server.store, port = server.port, path = server.runsPath, token = server.token
        let writes = try #require((store.engine as? SQLiteEngine)?.writes)
        // The writer is held by a write of the test's own.
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), held = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.write { _ in
                holding.signal()
                release.wait()
            }
            held.signal()
        }.start()
        holding.wait()
        let upload = Mutex<HTTPClient.Reply?>(nil), uploaded = DispatchSemaphore(value: 0)
        Thread {
            let reply = try? HTTPClient(port: port).post(path, body: RunFixture.body(), headers: ["Authorization": "Bearer \(token)"])
            upload.withLock { $0 = reply }
            uploaded.signal()
        }.start()
        let deadline = ContinuousClock.now + .seconds(10)
        while writes.counts.queued < 1, ContinuousClock.now < deadline { usleep(500) }
        #expect(writes.counts.queued == 1)
        // The one worker answers a read while the upload waits (it would be asleep in the
        // upload's write until the writer let go, and the read would wait for it).
        // Within 5 s, and the writer let go whatever the answer, so that a failure ends the test.
        let read = Result {
            try HTTPClient(port: port).exchange(Data("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
                                               seconds: 5)
        }
        let waitingMeanwhile = upload.withLock { $0 } == nil
        release.signal()
        #expect(try read.get().replies.first?.status == 200)
        #expect(waitingMeanwhile)
        held.wait()
        #expect(uploaded.wait(timeout: .now() + 10) == .success)
        let reply = try #require(upload.withLock { $0 })
        #expect(reply.status == 201, "\(reply.text)")
        #expect(try server.rowCounts()["runs"] == 1)
    }

    /// Outside the dispatcher, a deferred answer is waited for: its response, or its error thrown.
    @Test func aDeferredResponseIsWaitedForByAnyOtherCaller() throws {
        struct Refused: Error, Equatable {}
        let later = DeferredResponse { answer in
            Thread {
                usleep(20_000)
                answer(.success(Response(status: 201, headers: [:], body: Data("done".utf8))))
            }.start()
        }
        let response = try later.response()
        #expect(response.status == 201 && response.body == Data("done".utf8))
        #expect(throws: Refused()) { try DeferredResponse { $0(.failure(Refused())) }.response() }
    }
}
