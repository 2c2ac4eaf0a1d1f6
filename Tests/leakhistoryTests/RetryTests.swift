import Foundation
import LeakServer
import Testing
@testable import leakhistory
#if canImport(Glibc)
import Glibc
#endif

/// The CLI waits as a busy server asks, with jitter, within a bound; a server that gives no
/// `Retry-After` (down, not busy) is given up on after a few quick tries.
@Suite struct RetryTests {
    @Test func retryAfterIsHonouredWithJitterUpToTheBudget() throws {
        var low = RetryPolicy(waitBudget: .seconds(10), random: { 0 })
        #expect(low.nextWait(retryAfter: 2) == .seconds(2))
        var high = RetryPolicy(waitBudget: .seconds(10), random: { 0.999_999 })
        let jittered = high.nextWait(retryAfter: 2)
        let wait = try #require(jittered)
        #expect(wait > .seconds(2.9) && wait < .seconds(3))
        // The waits add up to the budget and no further.
        var policy = RetryPolicy(waitBudget: .seconds(10), random: { 0 })
        var total: Duration = .zero
        while let next = policy.nextWait(retryAfter: 3) { total += next }
        #expect(total == .seconds(9))
        #expect(policy.attempts == 4)
        // A server asking for more than the longest wait is asked as for the longest.
        var patient = RetryPolicy(waitBudget: .seconds(600), longestWait: .seconds(30), random: { 0 })
        #expect(patient.nextWait(retryAfter: 3_600) == .seconds(30))
    }

    @Test func withoutRetryAfterTheBackoffDoublesAndStopsAfterAFewTries() {
        var policy = RetryPolicy(firstBackoff: .milliseconds(250), blindRetries: 3, random: { 0 })
        #expect(policy.nextWait(retryAfter: nil) == .milliseconds(250))
        #expect(policy.nextWait(retryAfter: nil) == .milliseconds(500))
        #expect(policy.nextWait(retryAfter: nil) == .milliseconds(1_000))
        #expect(policy.nextWait(retryAfter: nil) == nil)
        // A busy answer is still waited for after those.
        #expect(policy.nextWait(retryAfter: 1) == .seconds(1))
    }

    @Test func retryAfterValuesAreReadAsSecondsOnly() {
        #expect(RetryPolicy.seconds(inRetryAfter: "3") == 3)
        #expect(RetryPolicy.seconds(inRetryAfter: " 12 ") == 12)
        #expect(RetryPolicy.seconds(inRetryAfter: "Wed, 21 Oct 2026 07:28:00 GMT") == nil)
        #expect(RetryPolicy.seconds(inRetryAfter: "-1") == nil)
        #expect(RetryPolicy.seconds(inRetryAfter: nil) == nil)
    }

    /// A server with its one connection slot for the CLI's address taken answers the upload 503
    /// with Retry-After; the CLI waits and asks again, and the upload is stored once the slot is free.
    @Test func uploadWaitsOutABusyServerAndIsStored() throws {
        let repository = try GitFixture()
        try repository.commit("first")
        let server = try TestServer {
            $0.perClientConnectionLimit = 1
            // Budgeted by address alone, so that the slot held below is the CLI's too.
            $0.tokenMemorySeconds = 0
        }
        try FileManager.default.createDirectory(at: repository.url.appendingPathComponent(".build/leakhistory"), withIntermediateDirectories: true)
        try repository.folder.report(".build/leakhistory/leakcheck-1.ndjson", [check("ProfileTests/open()", "App.ProfileViewModel", .leaked)])
        // A request in flight from 127.0.0.1 holds the slot.
        let held = try server.client.openSocket()
        let head = "POST /v1/projects/app/resolve HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"
        #expect(send(held, head, head.utf8.count, Int32(MSG_NOSIGNAL)) == head.utf8.count)
        let metrics = HTTPClient(port: server.port, source: "127.0.0.99")
        func refusals() throws -> Int {
            let text = try metrics.get("/metrics").text
            return text.split(separator: "\n").first { $0.hasPrefix("leakhistory_http_overloaded_total ") }
                .flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        }
        let result = Collected<CLIResult>()
        let finished = DispatchSemaphore(value: 0)
        let (directory, environment) = (repository.url, server.environment)
        Thread {
            if let run = try? CLI.run(["upload"], in: directory, environment: environment) { result.append(run) }
            finished.signal()
        }.start()
        // Freed once the CLI has been turned away at least once.
        for _ in 0..<1_000 {
            if try refusals() > 0 { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try refusals() >= 1)
        close(held)
        finished.wait()
        let run = try #require(result.values.first)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Uploaded run"))
        #expect(try server.count("runs") == 1)
    }
}
