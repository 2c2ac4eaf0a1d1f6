import Foundation
import Testing
@testable import LeakReport

@Suite struct RunRecordTests {
    let run = RunRecord(
        project: "app", commit: String(repeating: "a", count: 40), branch: "main",
        parents: [String(repeating: "b", count: 40)], environment: "linux-swift6.3", runKey: "job-1-attempt-1",
        startedAt: Date(timeIntervalSince1970: 1_764_468_657), tool: .init(name: "leakhistory", version: "0.1.0"),
        checks: [sampleCheck])

    @Test func roundTrips() throws {
        let data = try JSONEncoder().encode(run)
        #expect(try JSONDecoder().decode(RunRecord.self, from: data) == run)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["schema"] as? String == "leakhistory.run/1")
    }

    @Test func environmentDefaultsAndParentsAreOptional() throws {
        let json = """
            {"schema":"leakhistory.run/1","project":"app","commit":"\(String(repeating: "c", count: 40))",
             "runKey":"k","startedAt":"2026-11-30T02:10:57.5Z","checks":[]}
            """
        let decoded = try JSONDecoder().decode(RunRecord.self, from: Data(json.utf8))
        #expect(decoded.environment == "default")
        #expect(decoded.parents.isEmpty)
        #expect(decoded.branch == nil)
    }

    @Test func keyPathOfABadCheckIsNamed() throws {
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(run)) as! [String: Any]
        var checks = object["checks"] as! [[String: Any]]
        checks.append(checks[0])
        checks[1]["type"] = 42
        object["checks"] = checks
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try JSONDecoder().decode(RunRecord.self, from: data)
            Issue.record("decoding should have failed")
        } catch let error as DecodingError {
            #expect(error.keyPathDescription == "checks[1].type: expected a string")
        }
    }

    @Test func newerRunSchemaIsRefusedWithAClearMessage() {
        let json = #"{"schema":"leakhistory.run/7","project":"app"}"#
        do {
            _ = try JSONDecoder().decode(RunRecord.self, from: Data(json.utf8))
            Issue.record("decoding should have failed")
        } catch let error as DecodingError {
            #expect(error.keyPathDescription.hasPrefix("schema: schema \"leakhistory.run/7\" is newer than this build understands"))
            #expect(error.keyPathDescription.contains("upgrade LeakHistory"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(arguments: [
        (Date(timeIntervalSince1970: 0), "1970-01-01T00:00:00.000Z"),
        (Date(timeIntervalSince1970: 1_764_468_657.999), "2025-11-30T02:10:57.999Z"),
        (Date(timeIntervalSince1970: -0.5), "1969-12-31T23:59:59.500Z"),
    ])
    func timestampsAreUTCWithMilliseconds(date: Date, text: String) {
        #expect(ReportTimestamp.string(from: date) == text)
        #expect(ReportTimestamp.date(from: text).map { abs($0.timeIntervalSince(date)) < 0.001 } == true)
    }

    @Test func timestampsWithOffsetsAndWithoutFractionsParse() {
        #expect(ReportTimestamp.date(from: "2026-11-30T03:10:57+01:00") == ReportTimestamp.date(from: "2026-11-30T02:10:57Z"))
        #expect(ReportTimestamp.date(from: "not a time") == nil)
    }
}
