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
            environment: ["LEAKHISTORY_REPORT": "/tmp/x/report.ndjson"], workingDirectory: try folder(), processID: 7, now: now)
        #expect(path == "/tmp/x/report.ndjson")
    }

    @Test func environmentNamesAnExistingFolder() throws {
        let reports = try folder()
        let path = ReportSink.reportPath(
            environment: ["LEAKHISTORY_REPORT": reports], workingDirectory: "/", processID: 7, now: now)
        #expect(path == reports + "/leakcheck-20251130021057-_-7.ndjson")
    }

    @Test func environmentNamesAFolderToCreate() {
        let path = ReportSink.reportPath(
            environment: ["LEAKHISTORY_REPORT": "/tmp/new-reports/"], workingDirectory: "/", processID: 42, now: now)
        #expect(path == "/tmp/new-reports/leakcheck-20251130021057-_-42.ndjson")
    }

    @Test func buildFolderIsTheDefaultUnderSwiftTest() throws {
        let package = try folder()
        try FileManager.default.createDirectory(atPath: package + "/.build", withIntermediateDirectories: true)
        let path = ReportSink.reportPath(environment: [:], workingDirectory: package, processID: 9, now: now)
        #expect(path == package + "/.build/leakhistory/leakcheck-20251130021057-_-9.ndjson")
    }

    @Test func nowhereOutsideAPackage() throws {
        #expect(ReportSink.reportPath(environment: [:], workingDirectory: try folder(), processID: 9, now: now) == nil)
        #expect(ReportSink.reportPath(environment: ["LEAKHISTORY_REPORT": ""], workingDirectory: try folder(), processID: 9, now: now) == nil)
        #expect(ReportSink.reportPath(environment: ["SIMULATOR_HOST_HOME": ""], workingDirectory: try folder(), processID: 9, now: now) == nil)
    }

    @Test func simulatorWritesOnTheHostByDefault() throws {
        let path = ReportSink.reportPath(
            environment: ["SIMULATOR_HOST_HOME": "/Users/ci"], workingDirectory: try folder(), processID: 9, now: now)
        #expect(path == "/Users/ci/Library/Developer/LeakHistory/leakcheck-20251130021057-_-9.ndjson")
    }

    @Test func theVariableWinsOnTheSimulatorToo() throws {
        let path = ReportSink.reportPath(
            environment: ["SIMULATOR_HOST_HOME": "/Users/ci", "LEAKHISTORY_REPORT": "/Users/ci/app/.build/leakhistory/"],
            workingDirectory: "/", processID: 9, now: now)
        #expect(path == "/Users/ci/app/.build/leakhistory/leakcheck-20251130021057-_-9.ndjson")
    }

    @Test func aPackageFolderWinsOverTheSimulatorDefault() throws {
        let package = try folder()
        try FileManager.default.createDirectory(atPath: package + "/.build", withIntermediateDirectories: true)
        let path = ReportSink.reportPath(
            environment: ["SIMULATOR_HOST_HOME": "/Users/ci"], workingDirectory: package, processID: 9, now: now)
        #expect(path == package + "/.build/leakhistory/leakcheck-20251130021057-_-9.ndjson")
    }

    /// What a test process sees on an iOS simulator run by `xcodebuild test` with the README's
    /// recipe (`TEST_RUNNER_LEAKHISTORY_RUN_ID`, `TEST_RUNNER_LEAKHISTORY_COMMIT`), cloned for
    /// parallel testing: every clone's file carries the run and the commit, and no two share one.
    @Test func parallelSimulatorClonesWriteTheirOwnFilesOfOneRun() throws {
        let commit = String(repeating: "c0ffee12", count: 5)
        let xcode = [
            "SIMULATOR_HOST_HOME": "/Users/ci", "LEAKHISTORY_RUN_ID": "xcodebuild 981/2", "LEAKHISTORY_COMMIT": commit.uppercased(),
            "XCTestConfigurationFilePath": "/tmp/Session.xctestconfiguration",
        ]
        let clones = ["8C3A1F20-6B7D-4E2A-9F00-1A2B3C4D5E6F", "D41F88AA-0000-4E2A-9F00-1A2B3C4D5E6F"].map { udid in
            ReportSink.reportPath(environment: xcode.merging(["SIMULATOR_UDID": udid]) { $1 }, workingDirectory: "/", processID: 9, now: now)
        }
        #expect(clones == [
            "/Users/ci/Library/Developer/LeakHistory/leakcheck-20251130021057-xcodebuild_981_2-9.8c3a1f20-\(commit).ndjson",
            "/Users/ci/Library/Developer/LeakHistory/leakcheck-20251130021057-xcodebuild_981_2-9.d41f88aa-\(commit).ndjson",
        ])
        let names = clones.compactMap { $0.flatMap(ReportFileName.init(parsing:)) }
        #expect(names.map(\.run) == ["xcodebuild_981_2", "xcodebuild_981_2"])
        #expect(names.map(\.commit) == [commit, commit])
    }

    @Test func noRunIdIsNeverGuessedFromTheParentProcess() throws {
        let name = try #require(ReportSink.reportPath(environment: ["LEAKHISTORY_REPORT": "/r/"], workingDirectory: "/", processID: 9, now: now))
        #expect(ReportFileName(parsing: name)?.run == nil)
        #expect(ReportFileName(parsing: name)?.commit == nil)
        // A commit that is not a full hash is not recorded.
        let short = ReportSink.reportPath(
            environment: ["LEAKHISTORY_REPORT": "/r/", "LEAKHISTORY_COMMIT": "abc123"], workingDirectory: "/", processID: 9, now: now)
        #expect(short == "/r/leakcheck-20251130021057-_-9.ndjson")
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
