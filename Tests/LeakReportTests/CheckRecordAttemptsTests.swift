import Foundation
import Testing
@testable import LeakReport

/// `attempts` and `leakedAttempts`: written and read back as they are, absent meaning what reports
/// without them always meant, and impossible values refused naming the field.
@Suite struct CheckRecordAttemptsTests {
    /// `sampleCheck` with `outcome` and the attempts fields set.
    static func check(_ outcome: CheckOutcome, attempts: Int?, leakedAttempts: Int?) -> CheckRecord {
        var check = sampleCheck
        check.outcome = outcome
        check.attempts = attempts
        check.leakedAttempts = leakedAttempts
        return check
    }

    /// A line of `sampleCheck` with `members` (raw JSON) added.
    static func line(outcome: CheckOutcome = .leaked, _ members: String) throws -> String {
        var text = try #require(String(data: JSONEncoder().encode(check(outcome, attempts: nil, leakedAttempts: nil)),
                                       encoding: .utf8))
        text.removeLast()
        return text + (members.isEmpty ? "" : "," + members) + "}"
    }

    @Test func writtenAttemptsReadBack() throws {
        let path = try temporaryFolder().appendingPathComponent("report.ndjson").path
        let writer = try NDJSONWriter(path: path)
        let checks = [
            Self.check(.leaked, attempts: 3, leakedAttempts: 3),
            Self.check(.leaked, attempts: 3, leakedAttempts: 1),
            Self.check(.deallocated, attempts: 1, leakedAttempts: 0),
            Self.check(.deallocated, attempts: nil, leakedAttempts: nil),
        ]
        for check in checks { try writer.append(check) }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines[0].contains(#""attempts":3"#) && lines[0].contains(#""leakedAttempts":3"#))
        #expect(lines[1].contains(#""attempts":3"#) && lines[1].contains(#""leakedAttempts":1"#))
        #expect(!lines[3].contains("ttempts"), "a check without attempts is written as before: \(lines[3])")
        #expect(try NDJSONReader.checks(atPath: path) == checks)
    }

    @Test(arguments: [
        // (outcome, attempts, leakedAttempts, attemptCount, leakedAttemptCount, intermittent)
        (CheckOutcome.leaked, nil, nil, 1, 1, false),
        (.deallocated, nil, nil, 1, 0, false),
        (.lateRelease, nil, nil, 1, 0, false),
        (.error, nil, nil, 1, 0, false),
        (.leaked, 3, nil, 3, 3, false),
        (.deallocated, 3, nil, 3, 0, false),
        (.leaked, 3, 3, 3, 3, false),
        (.leaked, 3, 1, 3, 1, true),
        (.leaked, nil, 1, 1, 1, false),
        (.deallocated, 2, 1, 2, 1, false),
    ] as [(CheckOutcome, Int?, Int?, Int, Int, Bool)])
    func absentFieldsMeanWhatTheyAlwaysMeant(outcome: CheckOutcome, attempts: Int?, leakedAttempts: Int?,
                                             attemptCount: Int, leakedAttemptCount: Int, intermittent: Bool) throws {
        let check = Self.check(outcome, attempts: attempts, leakedAttempts: leakedAttempts)
        #expect(check.attemptCount == attemptCount)
        #expect(check.leakedAttemptCount == leakedAttemptCount)
        #expect(check.isIntermittent == intermittent)
        #expect(check.attemptsProblem == nil)
        let read = try NDJSONReader.checks(in: Data(JSONEncoder().encode(check)), source: "r.ndjson")
        #expect(read == [check])
    }

    @Test(arguments: [
        (CheckOutcome.leaked, #""attempts":0"#, "attempts: expected 1 to 2147483647, found 0"),
        (.deallocated, #""attempts":-2,"leakedAttempts":0"#, "attempts: expected 1 to 2147483647, found -2"),
        (.leaked, #""attempts":3,"leakedAttempts":-1"#, "leakedAttempts: expected 0 or more, found -1"),
        (.leaked, #""attempts":3,"leakedAttempts":4"#, "leakedAttempts: 4 is more than attempts (3)"),
        (.deallocated, #""leakedAttempts":2"#, "leakedAttempts: 2 is more than attempts (1, as it is absent)"),
        (.leaked, #""attempts":3,"leakedAttempts":0"#, "leakedAttempts: 0 on a leaked check"),
    ])
    func impossibleAttemptsAreRefusedNamingTheField(outcome: CheckOutcome, members: String, problem: String) throws {
        let data = Data((try Self.line(outcome: outcome, members) + "\n").utf8)
        let error = #expect(throws: ReportLineError.self) { try NDJSONReader.checks(in: data, source: "r.ndjson") }
        #expect(error?.description.hasPrefix("r.ndjson:1: " + problem) == true, "\(String(describing: error))")
    }

    @Test func aBadCheckInARunIsNamedByItsPlace() throws {
        let check = try Self.line(#""attempts":3,"leakedAttempts":4"#)
        let good = try Self.line("")
        let json = #"{"schema":"leakhistory.run/1","project":"app","commit":"\#(String(repeating: "c", count: 40))","#
            + #""runKey":"k","startedAt":"2026-11-30T02:10:57.5Z","checks":[\#(good),\#(good),\#(good),\#(check)]}"#
        let error = #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(RunRecord.self, from: Data(json.utf8))
        }
        #expect(error?.keyPathDescription == "checks[3].leakedAttempts: 4 is more than attempts (3)")
    }

    /// The helper the server's validation and fast parser call speaks the same words as the reader.
    @Test func theStaticRuleIsTheRecordsRule() {
        let problem = CheckRecord.attemptsProblem(attempts: 3, leakedAttempts: 4, outcome: .leaked)
        #expect(problem == CheckFieldProblem(field: "leakedAttempts", problem: "4 is more than attempts (3)"))
        #expect("checks[3].\(problem!)" == "checks[3].leakedAttempts: 4 is more than attempts (3)")
        #expect(Self.check(.leaked, attempts: 3, leakedAttempts: 4).attemptsProblem == problem)
        #expect(CheckRecord.attemptsProblem(attempts: nil, leakedAttempts: nil, outcome: .leaked) == nil)
    }
}
