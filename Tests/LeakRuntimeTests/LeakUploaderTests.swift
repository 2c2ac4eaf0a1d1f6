import Foundation
import LeakReport
@testable import LeakRuntime
import Testing

/// The uploader against the real server over real sockets, as a Linux service would use it.
@Suite(.serialized) struct LeakUploaderTests {
    static let commit = String(repeating: "ab", count: 20)

    static func check(_ index: Int) -> CheckRecord {
        CheckRecord(
            scenario: "Service/handler\(index)", file: "Sources/App/Handler.swift", line: index, type: "App.Handler\(index)",
            outcome: .leaked, waitedMs: 6000, timeoutMs: 6000, lifecycle: "watcher", message: "still alive", source: .watcher)
    }

    static func configuration(_ server: URL, token: String, spool: URL? = nil, checksPerRun: Int = 3) -> LeakUploader.Configuration {
        LeakUploader.Configuration(
            server: server, token: token, project: "app", commit: commit, build: "test-build", branch: "main",
            environment: "staging-linux", checksPerRun: checksPerRun, sendAfter: 3600, spoolFolder: spool,
            firstRetryDelay: 0.01, maxRetryDelay: 0.1)
    }

    /// Polls until `condition` holds; false if it never did within `seconds`.
    static func eventually(within seconds: Double = 30, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return try condition()
    }

    @Test func checksGoInBatchesOfTheConfiguredSize() throws {
        let server = try UploadServer()
        let uploader = LeakUploader(configuration: Self.configuration(server.url, token: server.token))
        for index in 0..<7 { uploader.record(Self.check(index)) }
        #expect(uploader.drain(timeout: 30))
        let runs = try server.runs(at: Self.commit)
        #expect(runs.map(\.checks).sorted() == [1, 3, 3], "two full runs, then the rest when drained")
        #expect(Set(runs.flatMap(\.leaks).map(\.type)) == Set((0..<7).map { "App.Handler\($0)" }))
        #expect(runs.allSatisfy { $0.environment == "staging-linux" && $0.runKey.hasPrefix("test-build-") })
        #expect(uploader.statistics.sentRuns == 3)
        #expect(uploader.statistics.sentChecks == 7)
    }

    @Test func aServerThatGoesAwayAndComesBackGetsEverythingOnce() throws {
        let server = try UploadServer()
        server.stop()
        let spool = server.directory.appendingPathComponent("spool", isDirectory: true)
        let uploader = LeakUploader(configuration: Self.configuration(server.url, token: server.token, spool: spool))
        for index in 0..<5 { uploader.record(Self.check(index)) }
        uploader.flush()
        // Refused connections, retried; the runs wait on disk, not in memory.
        #expect(Self.eventually { uploader.statistics.failedAttempts >= 3 })
        #expect(uploader.waiting.spooledRuns == 2)
        #expect(uploader.waiting.checksInMemory == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).count == 2)

        try server.start()
        #expect(uploader.drain(timeout: 30))
        let runs = try server.runs(at: Self.commit)
        #expect(runs.map(\.checks).sorted() == [2, 3])
        #expect(runs.flatMap(\.leaks).map(\.type).sorted() == (0..<5).map { "App.Handler\($0)" }.sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
    }

    @Test func runsSpooledByAnEarlierProcessAreSentByTheNext() throws {
        let server = try UploadServer()
        server.stop()
        let spool = server.directory.appendingPathComponent("spool", isDirectory: true)
        do {
            let first = LeakUploader(configuration: Self.configuration(server.url, token: server.token, spool: spool))
            for index in 0..<4 { first.record(Self.check(index)) }
            first.flush()
            #expect(Self.eventually { first.statistics.failedAttempts >= 1 && first.waiting.spooledRuns == 2 })
        }
        try server.start()
        let next = LeakUploader(configuration: Self.configuration(server.url, token: server.token, spool: spool))
        #expect(next.drain(timeout: 30))
        #expect(try Self.eventually { try server.runs(at: Self.commit).flatMap(\.leaks).count == 4 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool.path).isEmpty)
        // Sent twice (the first uploader may still have been retrying): stored once, by run key.
        #expect(try server.runs(at: Self.commit).count == 2)
    }

    #if canImport(Glibc)
    @Test func recordNeverWaitsForAServerThatHangsAndMemoryStaysBounded() throws {
        let hanging = SilentListener()
        var configuration = Self.configuration(URL(string: "http://127.0.0.1:\(hanging.port)")!, token: "t", checksPerRun: 10)
        configuration.maxQueuedChecks = 50
        let uploader = LeakUploader(configuration: configuration)
        // The first run goes out and never gets an answer; every record returns at once all the same.
        for index in 0..<1_000 { uploader.record(Self.check(index)) }
        let waiting = uploader.waiting.checksInMemory
        #expect(waiting == 50)
        #expect(uploader.statistics.dropped == 1_000 - waiting)
        #expect(uploader.statistics.sentRuns == 0)
    }
    #endif

    @Test func aRefusedRunIsDroppedNotRetried() throws {
        let server = try UploadServer()
        let uploader = LeakUploader(configuration: Self.configuration(server.url, token: "wrong-token"))
        for index in 0..<3 { uploader.record(Self.check(index)) }
        #expect(uploader.drain(timeout: 30))
        #expect(uploader.statistics.rejectedRuns == 1)
        #expect(uploader.statistics.failedAttempts == 0)
        #expect(try server.runs(at: Self.commit).isEmpty)
    }

    @Test func aWatchersFindingsReachTheServer() throws {
        let server = try UploadServer()
        let uploader = LeakUploader(configuration: Self.configuration(server.url, token: server.token, checksPerRun: 100))
        var watching = LeakWatcher.Configuration(strikes: 1, findsRetainPaths: false, report: nil)
        watching.upload(to: uploader)
        let watcher = LeakWatcher(configuration: watching)
        final class Session {}
        let kept = Session()
        watcher.watch(kept, name: "Service/session")
        #expect(watcher.checkNow().count == 1)
        #expect(uploader.drain(timeout: 30))
        let leaks = try server.runs(at: Self.commit).flatMap(\.leaks)
        #expect(leaks.map(\.scenario) == ["Service/session"])
        #expect(leaks.first?.type.hasSuffix("Session") == true)
        withExtendedLifetime(kept) {}
    }

    @Test func theEnvironmentOptsIn() {
        let base = [
            "LEAKHISTORY_SERVER": "https://leaks.example.com", "LEAKHISTORY_TOKEN": "secret",
            "LEAKHISTORY_PROJECT": "app", "LEAKHISTORY_COMMIT": Self.commit.uppercased(),
        ]
        #expect(LeakUploader.Configuration(environment: base) == nil, "off unless LEAKHISTORY_UPLOAD=1")
        let on = LeakUploader.Configuration(environment: base.merging(["LEAKHISTORY_UPLOAD": "1", "LEAKHISTORY_BUILD": "42"]) { $1 })
        #expect(on?.commit == Self.commit)
        #expect(on?.build == "42")
        #expect(on?.runsURL.absoluteString == "https://leaks.example.com/v1/projects/app/runs")
        var shortCommit = base
        shortCommit["LEAKHISTORY_UPLOAD"] = "1"
        shortCommit["LEAKHISTORY_COMMIT"] = "abc123"
        #expect(LeakUploader.Configuration(environment: shortCommit) == nil)
    }

    @Test func retriesDoubleUpToTheMaximumAndHonourRetryAfter() {
        var queue = UploadQueue()
        let configuration = Self.configuration(URL(string: "http://127.0.0.1:1")!, token: "t")
        let delays = (0..<6).map { _ in queue.failed(now: 0, retryAfter: nil, configuration: configuration) }
        #expect(delays == [0.01, 0.02, 0.04, 0.08, 0.1, 0.1])
        #expect(queue.failed(now: 0, retryAfter: 5, configuration: configuration) == 5)
    }
}
