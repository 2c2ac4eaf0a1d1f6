import Foundation
import LeakReport
@testable import LeakServer
import Testing

/// The fast path must build exactly what `JSONDecoder` builds, and leave everything else to it.
@Suite("RunRecordParser")
struct RunRecordParserTests {
    static let tricky = Data(#"""
        { "schema" : "leakhistory.run/1", "project":"app", "commit":"0123456789abcdef0123456789abcdef01234567",
          "branch": null, "parents": ["89abcdef0123456789abcdef0123456789abcdef"], "environment": "linux\u002Fswift",
          "runKey": "k\"1\\\/\b\f\n\r\t\u00e9\ud83d\ude80 ok", "startedAt": "2026-11-30T02:10:00.5+01:00",
          "tool": {"name": "t", "version": "1", "extra": [1, {"x": [true, false, null]}]},
          "unknown": {"nested": [[], {}, -0.5e-3, "s"]},
          "checks": [
            {"schema": "leakhistory.check/1", "scenario": "S/a()", "file": "F.swift", "line": 0, "type": "App.T",
             "outcome": "leaked", "waitedMs": 1.25E+3, "timeoutMs": 2000, "lifecycle": null, "retainPath": [
               {"holder": "App.C", "property": "children[0]", "kind": "collection", "note": 1}],
             "fingerprint": "fp", "message": "Ünïcødé 🚀 \u0000 nul", "timestamp": "2026-11-30T02:10:57Z",
             "source": "watcher", "knownIssue": true, "attempts": 3, "leakedAttempts": 2},
            {"schema": "leakhistory.check/1", "scenario": "S/b()", "file": "", "line": 12, "type": "App.U",
             "outcome": "deallocated", "waitedMs": -0, "timeoutMs": 0, "timestamp": "2026-11-30T02:10:57.123Z",
             "retainPath": null, "source": null, "knownIssue": false, "attempts": null, "leakedAttempts": null}
          ]
        }
        """#.utf8)

    static func decoded(_ data: Data) -> RunRecord? {
        try? JSONDecoder().decode(RunRecord.self, from: data)
    }

    @Test func buildsWhatJSONDecoderBuilds() throws {
        let bodies = [Self.tricky, RunFixture.body(), RunFixture.body(checks: []),
                      RunFixture.body(checks: (0..<50).map { RunFixture.check(scenario: "S/\($0)()", line: $0) })]
        for body in bodies {
            let expected = try #require(Self.decoded(body))
            #expect(RunRecordParser.parse(body) == expected)
        }
        let run = try #require(RunRecordParser.parse(Self.tricky))
        #expect(run.runKey == "k\"1\\/\u{8}\u{c}\n\r\té🚀 ok")
        #expect(run.checks[0].message == "Ünïcødé 🚀 \u{0} nul")
        #expect(run.checks[1].lifecycle == "none")
        #expect(run.checks.map(\.knownIssue) == [true, false])
        #expect(run.checks.map(\.attempts) == [3, nil])
        #expect(run.checks.map(\.leakedAttempts) == [2, nil])
    }

    /// The fast path and the model read one list of fields: the differential body above sets
    /// every member `CheckRecord` codes, so a field added to the model and not to the parser
    /// makes `buildsWhatJSONDecoderBuilds` fail.
    @Test func theDifferentialBodySetsEveryFieldOfTheModel() throws {
        let text = String(decoding: Self.tricky, as: UTF8.self)
        for field in CheckRecord.fieldNames {
            #expect(text.contains("\"\(field)\":"), "the tricky body lacks the check field '\(field)'")
        }
    }

    /// A body of a megabyte or more (a big run): its checks are counted before they are read,
    /// and a string that repeats is made once. The strings hold what the count must step over
    /// (brackets, commas and braces inside strings, escaped quotes and backslashes), and repeat
    /// with and without escapes.
    @Test func aBigBodyIsReadAsJSONDecoderReadsIt() throws {
        let count = 5_000
        let checks = (0..<count).map { index in
            RunFixture.check(scenario: "Suite\(index % 7)/test \"[\(index % 3)], {x}\\\(index % 5)()",
                             type: "App.Module.Type\(index % 11)WithALongName", line: index)
                .merging(["file": "/Users/runner/work/App/Tests/Feature\(index % 4)Tests.swift",
                          "message": "held by ] , } \\ \" #\(index)"]) { $1 }
        }
        let body = RunFixture.body(checks: checks)
        #expect(body.count >= 1 << 20, "the body is big enough to be read as a big one")
        let expected = try #require(Self.decoded(body))
        let run = try #require(RunRecordParser.parse(body))
        #expect(run == expected)
        // Made at its size, not grown by doubling (to 8,192 or more).
        #expect(run.checks.capacity < count + count / 8, "capacity \(run.checks.capacity) for \(count) checks")
        // The same file and type in two checks are one string in memory.
        func storage(_ text: String) -> UnsafeRawPointer? {
            var text = text
            return text.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        #expect(storage(run.checks[0].file) == storage(run.checks[4].file))
        #expect(storage(run.checks[0].type) == storage(run.checks[11].type))
        #expect(storage(run.checks[0].scenario) == storage(run.checks[105].scenario))
        #expect(storage(run.checks[0].file) != storage(run.checks[1].file))
    }

    /// The count ahead steps over what strings hold, and never makes room for more checks than
    /// the body could hold: a body of empty elements does not reserve many times its size.
    @Test func theChecksCountedAheadAreBoundedByTheBody() throws {
        let check = String(decoding: RunFixture.data(RunFixture.check(scenario: "S/a(\"[,]{,}\\\")")), as: UTF8.self)
        let checks = Data(("[" + Array(repeating: check, count: 7).joined(separator: " , ") + "]").utf8)
        #expect(RunRecordParser.checksAhead(in: checks) == 7)
        #expect(RunRecordParser.checksAhead(in: Data("[ ]".utf8)) == 0)
        let empties = Data(("[" + Array(repeating: "{}", count: 500_000).joined(separator: ",") + "]").utf8)
        #expect(RunRecordParser.checksAhead(in: empties) == empties.count / 128)
    }

    /// A run with one check whose fields end with `fragment`.
    static func body(outcome: String = "leaked", _ fragment: String) -> Data {
        Data((#"{"schema":"leakhistory.run/1","project":"app","commit":"0123456789abcdef0123456789abcdef01234567","#
            + #""runKey":"k","startedAt":"2026-11-30T02:10:00Z","checks":[{"schema":"leakhistory.check/1","#
            + #""scenario":"s","file":"f","type":"t","outcome":"\#(outcome)","waitedMs":1,"timeoutMs":1,"#
            + #""timestamp":"2026-11-30T02:10:00Z","# + fragment + "}]}").utf8)
    }

    @Test(arguments: [
        ("a leading zero", #""line": 012"#),
        ("an integer in exponent form", #""line": 1e2"#),
        ("a repeated key", #""line": 1, "line": 2"#),
        ("a lone surrogate", #""line": 1, "file2": "\ud83d x""#),
        ("a raw control character", "\"line\": 1, \"f2\": \"a\u{1}b\""),
        ("a null where a value is required", #""line": null"#),
        ("a string for a number", #""line": "1""#),
        ("an unknown value nested too deep", #""line": 1, "deep": "# + String(repeating: "[", count: 100)
            + String(repeating: "]", count: 100)),
    ])
    func leavesTheUnusualToJSONDecoder(_ name: String, _ fragment: String) {
        #expect(Self.decoded(Self.body(#""line": 1"#)) != nil, "the template itself is valid")
        #expect(RunRecordParser.parse(Self.body(fragment)) == nil, "\(name)")
    }

    @Test func anUnknownOutcomeIsLeftToJSONDecoder() {
        #expect(RunRecordParser.parse(Self.body(outcome: "gone", #""line": 1"#)) == nil)
        #expect(RunRecordParser.parse(Self.body(outcome: "leaked", #""line": 1"#)) != nil)
    }

    @Test func trailingBytesAndOtherSchemasAreLeftAlone() {
        #expect(RunRecordParser.parse(RunFixture.body() + Data(" x".utf8)) == nil)
        #expect(RunRecordParser.parse(RunFixture.body() + Data(" \n".utf8)) != nil)
        var newer = RunFixture.run()
        newer["schema"] = "leakhistory.run/2"
        #expect(RunRecordParser.parse(RunFixture.data(newer)) == nil)
        #expect(RunRecordParser.parse(Data("[]".utf8)) == nil)
    }

    /// Random one-byte edits of a valid body: whatever the fast path accepts, JSONDecoder must
    /// accept as the same run.
    @Test func agreesWithJSONDecoderOnEveryMutantItAccepts() {
        var generator = SplitMix64(seed: 0x1EA4_4157)
        let alphabet = Array(#"{}[]":,.-+eE0123456789 \/"abnulltrue"#.utf8)
        var accepted = 0, refused = 0
        for _ in 0..<3_000 {
            var bytes = [UInt8](Self.tricky)
            for _ in 0..<Int(generator.next() % 3 + 1) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes.remove(at: position)
                case 1: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                default: bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                }
            }
            let data = Data(bytes)
            guard String(validating: data, as: UTF8.self) != nil else { continue }
            if let fast = RunRecordParser.parse(data) {
                accepted += 1
                #expect(fast == Self.decoded(data), "\(String(decoding: data, as: UTF8.self))")
            } else {
                refused += 1
            }
        }
        // Both branches ran: the comparison above is not vacuous.
        #expect(accepted > 100)
        #expect(refused > 100)
    }
}
