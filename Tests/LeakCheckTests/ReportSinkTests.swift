import Foundation
import LeakReport
import Testing
@testable import LeakCheck
@testable import LeakRuntime

@Suite struct ReportSinkTests {
    let now = Date(timeIntervalSince1970: 1_764_468_657)

    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("leaksink-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func environmentNamesAFile() throws {
        let path = ReportSink.reportPath(
            environment: ["LEAKHISTORY_REPORT": "/tmp/x/report.ndjson"], workingDirectory: try folder(), runnerID: 3, processID: 7, now: now)
        #expect(path == "/tmp/x/report.ndjson")
    }

    @Test func environmentNamesAnExistingFolder() throws {
        let reports = try folder()
        let path = ReportSink.reportPath(
            environment: ["LEAKHISTORY_REPORT": reports], workingDirectory: "/", runnerID: 3, processID: 7, now: now)
        #expect(path == reports + "/leakcheck-20251130021057-3-7.ndjson")
    }

    @Test func environmentNamesAFolderToCreate() {
        let path = ReportSink.reportPath(
            environment: ["LEAKHISTORY_REPORT": "/tmp/new-reports/"], workingDirectory: "/", runnerID: 3, processID: 42, now: now)
        #expect(path == "/tmp/new-reports/leakcheck-20251130021057-3-42.ndjson")
    }

    @Test func buildFolderIsTheDefaultUnderSwiftTest() throws {
        let package = try folder()
        try FileManager.default.createDirectory(atPath: package + "/.build", withIntermediateDirectories: true)
        let path = ReportSink.reportPath(environment: [:], workingDirectory: package, runnerID: 3, processID: 9, now: now)
        #expect(path == package + "/.build/leakhistory/leakcheck-20251130021057-3-9.ndjson")
    }

    @Test func nowhereOutsideAPackage() throws {
        #expect(ReportSink.reportPath(environment: [:], workingDirectory: try folder(), runnerID: 3, processID: 9, now: now) == nil)
        #expect(ReportSink.reportPath(environment: ["LEAKHISTORY_REPORT": ""], workingDirectory: try folder(), runnerID: 3, processID: 9, now: now) == nil)
        #expect(ReportSink.reportPath(environment: ["SIMULATOR_HOST_HOME": ""], workingDirectory: try folder(), runnerID: 3, processID: 9, now: now) == nil)
    }

    @Test func simulatorWritesOnTheHostByDefault() throws {
        let path = ReportSink.reportPath(
            environment: ["SIMULATOR_HOST_HOME": "/Users/ci"], workingDirectory: try folder(), runnerID: 3, processID: 9, now: now)
        #expect(path == "/Users/ci/Library/Developer/LeakHistory/leakcheck-20251130021057-3-9.ndjson")
    }

    @Test func theVariableWinsOnTheSimulatorToo() throws {
        let path = ReportSink.reportPath(
            environment: ["SIMULATOR_HOST_HOME": "/Users/ci", "LEAKHISTORY_REPORT": "/Users/ci/app/.build/leakhistory/"],
            workingDirectory: "/", runnerID: 3, processID: 9, now: now)
        #expect(path == "/Users/ci/app/.build/leakhistory/leakcheck-20251130021057-3-9.ndjson")
    }

    @Test func aPackageFolderWinsOverTheSimulatorDefault() throws {
        let package = try folder()
        try FileManager.default.createDirectory(atPath: package + "/.build", withIntermediateDirectories: true)
        let path = ReportSink.reportPath(
            environment: ["SIMULATOR_HOST_HOME": "/Users/ci"], workingDirectory: package, runnerID: 3, processID: 9, now: now)
        #expect(path == package + "/.build/leakhistory/leakcheck-20251130021057-3-9.ndjson")
    }

    @Test func nowhereSaysHowToSetTheVariable() {
        let message = LeakMessage.noReportDestination(workingDirectory: "/private/var/xcode")
        #expect(message.contains("/private/var/xcode has no .build folder"))
        #expect(message.contains("Set LEAKHISTORY_REPORT to a folder ending in /"))
        #expect(message.contains("TEST_RUNNER_LEAKHISTORY_REPORT"))
    }

    /// The real sink of this test process: `swift test` runs in the package folder, so checks
    /// land in `.build/leakhistory/` (or where `LEAKHISTORY_REPORT` says).
    @Test func checksAreAppendedToThisProcesssReport() async throws {
        let path = try #require(ReportSink.path, "swift test runs where .build exists, so there is a report")
        await expectDeallocation { ReportedByThisTest() }
        let checks = try NDJSONReader.checks(atPath: path)
        let mine = checks.filter { $0.type == "LeakCheckTests.ReportedByThisTest" }
        #expect(mine.count == 1)
        #expect(mine.first?.scenario == "ReportSinkTests/checksAreAppendedToThisProcesssReport()")
        #expect(mine.first?.outcome == .deallocated)
        #expect(mine.first?.source == .test)
    }
}

final class ReportedByThisTest {}
