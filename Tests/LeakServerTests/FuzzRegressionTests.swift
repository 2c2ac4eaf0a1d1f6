import Foundation
import LoopbackClient
import Testing

/// Every saved fuzz input — the seeds in `Fuzz/corpus` and any input that once broke the server,
/// in `Fuzz/regressions` — sent as `make fuzz` sends it: no 5xx.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ folder: String) -> [String] {
        let path = root.appendingPathComponent(folder).path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(folder)/\($0)" }
    }

    @Test("A saved input is answered below 500", arguments: inputs("corpus") + inputs("regressions"))
    func answeredBelow500(_ name: String) throws {
        let server = try TestServer()
        let input = try Data(contentsOf: Self.root.appendingPathComponent(name))
        let upload = FuzzedUpload(input)
        var headers = upload.headers
        headers["Authorization"] = "Bearer \(server.token)"
        let reply = try server.upload(upload.body, headers: headers)
        #expect(reply.status < 500, "\(name): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
    }

    /// The seeds reach the decoder: a valid run is stored through each of the three paths.
    @Test("A valid seed is stored through each path", arguments: ["valid-run.json.bin", "valid-run-gzip-here.bin", "valid-run-gzip-raw.bin"])
    func validSeedStored(_ name: String) throws {
        let server = try TestServer()
        let upload = FuzzedUpload(try Data(contentsOf: Self.root.appendingPathComponent("corpus/\(name)")))
        var headers = upload.headers
        headers["Authorization"] = "Bearer \(server.token)"
        let reply = try server.upload(upload.body, headers: headers)
        #expect(reply.status == 201, "\(String(decoding: reply.body, as: UTF8.self))")
    }

    @Test("The corpus is there")
    func corpusPresent() {
        #expect(Self.inputs("corpus").count >= 6)
    }
}
