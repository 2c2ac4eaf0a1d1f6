import Foundation
import Testing
@testable import LeakReport

/// A fresh folder for one test's files.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("leakreport-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

let sampleCheck = CheckRecord(
    scenario: "ProfileTests/profileScreen()", file: "ProfileTests.swift", line: 12, type: "App.ProfileViewModel",
    outcome: .leaked, waitedMs: 2000.5, timeoutMs: 2000, lifecycle: "custom",
    retainPath: [
        RetainPathStep(holder: "App.ProfileViewModel", property: "coordinator", kind: .strong),
        RetainPathStep(holder: "App.MainCoordinator", property: "children[0]", kind: .collection),
    ],
    fingerprint: "0123456789abcdef", message: "App.ProfileViewModel was not deallocated \"quoted\" / ünïcødé\nsecond line",
    timestamp: Date(timeIntervalSince1970: 1_764_468_657.123), source: .test)

@Suite struct NDJSONTests {
    @Test func writtenLinesReadBack() throws {
        let path = try temporaryFolder().appendingPathComponent("nested/report.ndjson").path
        let writer = try NDJSONWriter(path: path)
        var second = sampleCheck
        second.outcome = .deallocated
        second.retainPath = nil
        second.fingerprint = nil
        second.message = nil
        try writer.append(sampleCheck)
        try writer.append(second)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2)
        #expect(text.hasSuffix("\n"))
        #expect(text.contains("\"schema\":\"leakhistory.check/1\""))
        #expect(text.contains("\"timestamp\":\"2025-11-30T02:10:57.123Z\""))
        #expect(try NDJSONReader.checks(atPath: path) == [sampleCheck, second])
    }

    @Test func blankLinesAreSkippedAndUnknownFieldsIgnored() throws {
        let lines = """

            {"schema":"leakhistory.check/1","scenario":"S/t()","file":"F.swift","line":3,"type":"M.T","outcome":"deallocated","waitedMs":0.01,"timeoutMs":2000,"timestamp":"2026-11-30T02:10:57Z","futureField":{"a":1}}
            \t
            """
        let checks = try NDJSONReader.checks(in: Data(lines.utf8), source: "r.ndjson")
        #expect(checks.count == 1)
        #expect(checks.first?.lifecycle == "none")
        #expect(checks.first?.source == nil)
    }

    @Test(arguments: [
        ("{\"schema\":\"leakhistory.check/1\",\"scenario\":5}", "scenario: expected a string"),
        ("{\"schema\":\"leakhistory.check/1\",\"scenario\":\"S\"}", "file: missing"),
        ("{\"schema\":\"leakhistory.check/2\"}", "newer than this build understands"),
        ("{\"schema\":\"something.else/1\"}", "expected \"leakhistory.check/1\""),
        ("{\"scenario\":\"S\"}", "schema: missing"),
        ("{not json", "not valid JSON"),
        ("{\"schema\":\"leakhistory.check/1\",\"scenario\":\"S\",\"file\":\"F\",\"line\":1,\"type\":\"T\",\"outcome\":\"vanished\",\"waitedMs\":1,\"timeoutMs\":1,\"timestamp\":\"2026-11-30T02:10:57Z\"}", "outcome"),
        ("{\"schema\":\"leakhistory.check/1\",\"scenario\":\"S\",\"file\":\"F\",\"line\":1,\"type\":\"T\",\"outcome\":\"leaked\",\"waitedMs\":1,\"timeoutMs\":1,\"timestamp\":\"yesterday\"}", "timestamp: expected an ISO 8601 timestamp"),
        ("{\"schema\":\"leakhistory.check/1\",\"scenario\":\"S\",\"file\":\"F\",\"line\":1,\"type\":\"T\",\"outcome\":\"leaked\",\"waitedMs\":1,\"timeoutMs\":1,\"timestamp\":\"2026-11-30T02:10:57Z\",\"retainPath\":[{\"holder\":\"A\",\"property\":\"b\"}]}", "retainPath[0].kind: missing"),
    ])
    func badLineIsNamedWithItsNumber(line: String, problem: String) throws {
        let good = try String(data: JSONEncoder().encode(sampleCheck), encoding: .utf8)!
        let data = Data((good + "\n" + good + "\n" + line + "\n").utf8)
        let error = #expect(throws: ReportLineError.self) { try NDJSONReader.checks(in: data, source: "report.ndjson") }
        #expect(error?.line == 3)
        #expect(error?.description.hasPrefix("report.ndjson:3: ") == true, "\(String(describing: error))")
        #expect(error?.description.contains(problem) == true, "\(String(describing: error))")
    }

    @Test func invalidUTF8IsNamed() {
        var data = Data("\n".utf8)
        data.append(contentsOf: [0x7B, 0xFF, 0xFE, 0x7D, 0x0A])
        let error = #expect(throws: ReportLineError.self) { try NDJSONReader.checks(in: data, source: "r.ndjson") }
        #expect(error?.description == "r.ndjson:2: not valid UTF-8")
    }

    @Test func unreadableFileIsNamed() {
        let error = #expect(throws: ReportLineError.self) { try NDJSONReader.checks(atPath: "/nonexistent/report.ndjson") }
        #expect(error?.description.hasPrefix("/nonexistent/report.ndjson: cannot read the file") == true)
    }

    @Test func unwritablePathIsNamed() {
        let error = #expect(throws: ReportWriteError.self) { try NDJSONWriter(path: "/proc/leakhistory/report.ndjson") }
        #expect(error?.description.hasPrefix("cannot write the leak report /proc/leakhistory/report.ndjson: ") == true)
    }

    /// Several processes append to one file at once: every line arrives whole, exactly once.
    @Test func concurrentProcessesNeverTearLines() throws {
        let path = try temporaryFolder().appendingPathComponent("shared.ndjson").path
        let probe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("ReportAppendProbe")
        let writers = 4, perWriter = 500
        let processes = try (0..<writers).map { writer -> Process in
            let process = Process()
            process.executableURL = probe
            // Lines of about 9 KB, past PIPE_BUF, so a torn write would show.
            process.arguments = [path, "writer\(writer)", String(perWriter), String(9_000)]
            try process.run()
            return process
        }
        for process in processes {
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        let checks = try NDJSONReader.checks(atPath: path)
        #expect(checks.count == writers * perWriter)
        #expect(Set(checks.map(\.scenario)).count == writers * perWriter)
        #expect(checks.allSatisfy { $0.message?.count == 9_000 })
    }
}
