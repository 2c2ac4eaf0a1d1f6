import Foundation
import LeakStore
import Testing

/// A big upload is stored in slices (`StoreOptions.ingestSliceChecks`): small uploads and reads
/// that come while it is being stored are answered between its slices, not after it.
@Suite("Sliced uploads")
struct SlicedUploadTests {
    @Test func smallRequestsAreAnsweredWhileABigUploadIsStored() throws {
        let server = try TestServer()
        let checks = (0..<(StoreOptions().ingestSliceChecks * 2 + 500)).map {
            RunFixture.check(scenario: "BigTests/test\($0)()", outcome: $0 % 100 == 0 ? "leaked" : "deallocated")
        }
        let big = RunFixture.body(runKey: "big", checks: checks)
        // The big upload stops after its first slice until the small requests were answered
        // (or a minute has passed, when they could not be: then the test fails below).
        let firstSlice = DispatchSemaphore(value: 0), answered = DispatchSemaphore(value: 0)
        let waitedInVain = Collected<Bool>()
        server.store.sliceObserver.withLock {
            $0 = { slice in
                guard slice == 0 else { return }
                firstSlice.signal()
                if answered.wait(timeout: .now() + 60) == .timedOut { waitedInVain.append(true) }
            }
        }
        let bigReply = Collected<Int>(), client = server.client, path = server.runsPath, token = server.token
        let uploading = Thread {
            bigReply.append((try? client.post(path, body: big, headers: ["Authorization": "Bearer \(token)"]))?.status ?? -1)
        }
        uploading.start()
        #expect(firstSlice.wait(timeout: .now() + 60) == .success)
        var statuses: [Int] = []
        for index in 0..<3 {
            statuses.append(try server.upload(RunFixture.body(runKey: "small-\(index)")).status)
            statuses.append(try server.client.get("/v1/projects/app/types?branch=main&environment=linux-swift6.3").status)
        }
        #expect(bigReply.values.isEmpty, "the big upload is still being stored")
        answered.signal()
        while bigReply.values.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        #expect(statuses == [201, 200, 201, 200, 201, 200])
        #expect(bigReply.values == [201])
        #expect(waitedInVain.values.isEmpty)
        // The small runs and the big one all count at the commit.
        let page = try #require(try server.store.commit(project: "app", sha: RunFixture.commit, limit: 10, cursor: nil))
        #expect(page.runs.count == 4)
    }
}
