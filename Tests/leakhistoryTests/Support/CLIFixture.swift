import Foundation
import LeakReport

/// What a run of the built `leakhistory` binary printed, and how it exited.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built `leakhistory` binary, as CI would.
enum CLI {
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("leakhistory")
    }

    /// Runs `leakhistory arguments` in `directory` with only the environment given (plus PATH and HOME).
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> CLIResult {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let inherited = ProcessInfo.processInfo.environment
        var env = ["PATH": inherited["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path]
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A fresh folder, removed when the value goes.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `checks` as an NDJSON report at `name`.
    @discardableResult
    func report(_ name: String, _ checks: [CheckRecord]) throws -> String {
        let path = self.path(name)
        try? FileManager.default.removeItem(atPath: path)
        let writer = try NDJSONWriter(path: path)
        for check in checks { try writer.append(check) }
        return path
    }
}

/// A git repository built commit by commit in a temporary folder.
final class GitFixture {
    let folder: TemporaryFolder
    var url: URL { folder.url }

    init() throws {
        folder = try TemporaryFolder()
        try git("init", "-q", "-b", "main")
    }

    @discardableResult
    func git(_ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"] + arguments
        process.currentDirectoryURL = url
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError("git \(arguments.joined(separator: " ")): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Commits a change and returns the new commit's SHA.
    @discardableResult
    func commit(_ message: String) throws -> String {
        try message.write(to: url.appendingPathComponent("file-\(UUID().uuidString).txt"), atomically: true, encoding: .utf8)
        try git("add", "-A")
        try git("commit", "-q", "-m", message)
        return try git("rev-parse", "HEAD")
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The CLI's view of the server fixture shared with `LeakServerTests` (`Support/TestServer.swift`,
/// compiled into both test targets through a symlink).
extension TestServer {
    var url: String { "http://127.0.0.1:\(port)" }

    /// The environment a CI job would set for `leakhistory`.
    var environment: [String: String] {
        ["LEAKHISTORY_SERVER": url, "LEAKHISTORY_TOKEN": token, "LEAKHISTORY_PROJECT": project]
    }

    func count(_ table: String) throws -> Int64 {
        try store.read { try $0.scalarInt("SELECT count(*) FROM \(table)") ?? -1 }
    }
}

/// A check as LeakCheck would write it.
func check(_ scenario: String, _ type: String, _ outcome: CheckOutcome, file: String = "Tests/AppTests/ProfileTests.swift", line: Int = 12) -> CheckRecord {
    CheckRecord(scenario: scenario, file: file, line: line, type: type, outcome: outcome, waitedMs: 1, timeoutMs: 2000,
                retainPath: outcome == .leaked ? [RetainPathStep(holder: type, property: "onDone", kind: .closure)] : nil,
                fingerprint: outcome == .leaked ? "fp-\(type)" : nil)
}

/// A port nothing listens on: bound, then released.
func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}
