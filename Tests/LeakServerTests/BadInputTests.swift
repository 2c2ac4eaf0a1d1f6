import Foundation
import Testing

/// Each bad upload gets its status, a message that says what is wrong, and stores nothing.
@Suite("Bad uploads")
struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var body: Data
        var headers: [String: String] = [:]
        var framing: Framing = .contentLength
        var status: Int
        var code: String
        var message: String
        var testDescription: String { name }

        enum Framing: Sendable { case contentLength, chunked }
    }

    static func mutated(_ change: (inout [String: Any]) -> Void) -> Data {
        var run = RunFixture.run()
        change(&run)
        return RunFixture.data(run)
    }

    static func mutatedCheck(_ change: (inout [String: Any]) -> Void) -> Data {
        var check = RunFixture.check()
        change(&check)
        return RunFixture.body(checks: [RunFixture.check(), check])
    }

    static let cases: [Case] = [
        Case(name: "malformed JSON", body: Data(#"{"schema": "leakhistory.run/1", "#.utf8), status: 400,
             code: "invalid_report", message: "not valid JSON: Unexpected end of file"),
        Case(name: "a syntax error", body: Data(#"{"schema": "leakhistory.run/1", nope}"#.utf8), status: 400,
             code: "invalid_report", message: "not valid JSON: Invalid value around character 32"),
        Case(name: "a newer schema", body: mutated { $0["schema"] = "leakhistory.run/2" }, status: 400,
             code: "invalid_report", message: "schema: schema \"leakhistory.run/2\" is newer than this build"),
        Case(name: "a missing field", body: mutated { $0["runKey"] = nil }, status: 400,
             code: "invalid_report", message: "runKey: missing"),
        Case(name: "a missing field in a check", body: mutatedCheck { $0["outcome"] = nil }, status: 400,
             code: "invalid_report", message: "checks[1].outcome: missing"),
        Case(name: "a wrong type", body: mutatedCheck { $0["type"] = 42 }, status: 400,
             code: "invalid_report", message: "checks[1].type: expected a string"),
        Case(name: "an unknown outcome", body: mutatedCheck { $0["outcome"] = "vanished" }, status: 400,
             code: "invalid_report", message: "checks[1].outcome"),
        Case(name: "a body that is not an object", body: Data("[1,2]".utf8), status: 400,
             code: "invalid_report", message: "expected an object"),
        Case(name: "invalid UTF-8",
             body: Data(#"{"schema":"leakhistory.run/1","project":"app","runKey":""#.utf8) + Data([0xC3, 0x28, 0xFF])
                 + Data(#""}"#.utf8),
             status: 400, code: "invalid_report", message: "not valid UTF-8"),
        Case(name: "an empty body", body: Data(), status: 400, code: "invalid_report", message: "the body is empty"),
        Case(name: "a commit that is not 40 hex", body: mutated { $0["commit"] = "main" }, status: 400,
             code: "invalid_report", message: "commit: expected a 40-digit hex commit id"),
        Case(name: "a parent that is not 40 hex", body: mutated { $0["parents"] = ["abc"] }, status: 400,
             code: "invalid_report", message: "parents[0]: expected a 40-digit hex commit id"),
        Case(name: "another project in the body", body: mutated { $0["project"] = "other" }, status: 403,
             code: "project_mismatch", message: "project: the body names project \"other\" but the URL names \"app\""),
        Case(name: "a negative line", body: mutatedCheck { $0["line"] = -1 }, status: 400,
             code: "invalid_report", message: "checks[1].line: expected 0 to 2147483647, found -1"),
        Case(name: "more leaked attempts than attempts",
             body: mutatedCheck { $0["outcome"] = "leaked"; $0["attempts"] = 3; $0["leakedAttempts"] = 4 }, status: 400,
             code: "invalid_report", message: "checks[1].leakedAttempts: 4 is more than attempts (3)"),
        Case(name: "a leaked check that leaked in no attempt",
             body: mutatedCheck { $0["outcome"] = "leaked"; $0["attempts"] = 3; $0["leakedAttempts"] = 0 }, status: 400,
             code: "invalid_report", message: "checks[1].leakedAttempts: 0 on a leaked check"),
        Case(name: "no attempts", body: mutatedCheck { $0["attempts"] = 0 }, status: 400,
             code: "invalid_report", message: "checks[1].attempts: expected 1 to 2147483647, found 0"),
        Case(name: "a scenario longer than the limit",
             body: mutatedCheck { $0["scenario"] = String(repeating: "s", count: 1025) }, status: 400,
             code: "invalid_report", message: "checks[1].scenario: longer than 1024 characters"),
        Case(name: "a repeated key", body: Data(#"{"runKey":"first","#.utf8) + RunFixture.body().dropFirst(), status: 400,
             code: "invalid_report", message: "runKey: the key appears twice in its object"),
        Case(name: "a repeated key in a check",
             body: Data(String(decoding: RunFixture.body(), as: UTF8.self)
                 .replacingOccurrences(of: #""scenario":"#, with: #""line":1,"scenario":"#).utf8),
             status: 400, code: "invalid_report", message: "checks[0].line: the key appears twice in its object"),
        Case(name: "a schema version with a sign", body: mutated { $0["schema"] = "leakhistory.run/+1" }, status: 400,
             code: "invalid_report", message: "found \"leakhistory.run/+1\""),
        Case(name: "a type holding NUL", body: mutatedCheck { $0["type"] = "App.A\u{0}B" }, status: 400,
             code: "invalid_report", message: "checks[1].type: contains a NUL character"),
        Case(name: "an empty runKey", body: mutated { $0["runKey"] = "" }, status: 400,
             code: "invalid_report", message: "runKey: must not be empty"),
        Case(name: "too many retain path steps",
             body: mutatedCheck { $0["retainPath"] = Array(repeating: ["holder": "A", "property": "b", "kind": "strong"], count: 257) },
             status: 413, code: "payload_too_large", message: "checks[1].retainPath: 257 steps, more than the limit of 256"),
        Case(name: "a body over the limit with no length announced",
             body: Data(repeating: UInt8(ascii: " "), count: 70 * 1024) + RunFixture.body(), framing: .chunked,
             status: 413, code: "payload_too_large", message: "larger than the limit of 65536 bytes"),
        Case(name: "a gzip bomb", body: gzipped(Data(repeating: UInt8(ascii: " "), count: 8 * 1024 * 1024)),
             headers: ["Content-Encoding": "gzip"], status: 413, code: "payload_too_large",
             message: "inflates to more than the limit of 1048576 bytes"),
        Case(name: "a body marked gzip that is not", body: RunFixture.body(), headers: ["Content-Encoding": "gzip"],
             status: 400, code: "invalid_encoding", message: "not valid gzip"),
        Case(name: "an unsupported encoding", body: RunFixture.body(), headers: ["Content-Encoding": "br"],
             status: 415, code: "unsupported_encoding", message: "Content-Encoding \"br\" is not supported"),
    ]

    @Test(arguments: cases)
    func isRefusedWithItsStatusAndMessageAndStoresNothing(_ bad: Case) throws {
        let server = try TestServer { configuration in
            configuration.limits.maxBodyBytes = 64 * 1024
            configuration.limits.maxDecompressedBytes = 1024 * 1024
        }
        var headers = bad.headers
        headers["Authorization"] = "Bearer \(server.token)"
        let reply = try server.upload(bad.body, headers: headers, framing: bad.framing == .chunked ? .chunked : .contentLength)
        #expect(reply.status == bad.status, "\(reply.text)")
        #expect(reply.error?.code == bad.code, "\(reply.text)")
        #expect(reply.error?.message.contains(bad.message) == true, "\(reply.error?.message ?? reply.text)")
        #expect(try server.nothingStored())
    }

    @Test func aBodyAnnouncedOverTheDefaultLimitIsRefusedBeforeItIsSent() throws {
        let server = try TestServer()
        // Only the head goes out: the server answers 413 instead of `100 Continue`.
        let announced = 32 * 1024 * 1024 + 1
        let reply = try server.client.send("POST", server.runsPath, headers: ["Authorization": "Bearer \(server.token)"],
                                           body: Data("{}".utf8), framing: .expectContinue, announcedLength: announced)
        #expect(reply.status == 413)
        #expect(reply.error?.message.contains("larger than the limit of 33554432 bytes") == true)
        #expect(try server.nothingStored())
    }

    @Test func aClientStreamingFarPastTheLimitIsCutOff() throws {
        let server = try TestServer { $0.limits.maxBodyBytes = 64 * 1024 }
        let endless = Data(repeating: UInt8(ascii: " "), count: 512 * 1024)
        #expect(throws: ClientError.self) { try server.upload(endless, framing: .chunked) }
        #expect(try server.nothingStored())
        #expect(try server.client.get("/healthz").status == 200)
    }

    @Test func tooManyChecksAreRefusedNamingTheLimit() throws {
        let server = try TestServer { $0.limits.maxChecksPerRun = 2 }
        let checks = (0..<3).map { RunFixture.check(scenario: "S/\($0)()") }
        let reply = try server.upload(RunFixture.body(checks: checks))
        #expect(reply.status == 413)
        #expect(reply.error?.message == "checks: 3 checks, more than the limit of 2 per run; split the run")
        #expect(try server.nothingStored())
    }
}
