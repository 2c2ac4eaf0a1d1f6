import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The built `leakhistory-server` binary run as a child process in its own temp folder, with
/// stdout and stderr going to files there (so a chatty server never blocks on a full pipe).
final class ServerProcess {
    /// The binary sits beside the test bundle in `.build/<triple>/debug`.
    static var binary: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("leakhistory-server")
    }

    let directory: URL
    private(set) var process: Process?
    private(set) var port = 0
    private var stdoutURL: URL { directory.appendingPathComponent("stdout.txt") }
    private var stderrURL: URL { directory.appendingPathComponent("stderr.txt") }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("leakhistory-process-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a command to completion (`projects create app`, …) in the folder.
    func command(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = try launch(arguments, appendOutput: false)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    /// Starts serving on an ephemeral port and waits for the `listening on` line.
    func start(_ arguments: [String] = []) throws {
        let earlierStarts = listeningLines.count
        let process = try launch(["--port", "0", "--database", "leaks.sqlite"] + arguments, appendOutput: true)
        self.process = process
        // Poll for this start's line rather than sleep a fixed time; give up only if the process dies.
        while process.isRunning {
            let lines = listeningLines
            if lines.count > earlierStarts, let line = lines.last,
               let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                self.port = port
                return
            }
            usleep(10_000)
        }
        throw ClientError("leakhistory-server exited with \(process.terminationStatus) before listening: \(stderr)")
    }

    func signal(_ number: Int32) {
        if let process { kill(process.processIdentifier, number) }
    }

    /// Waits for the server to exit and returns its status.
    func waitForExit() -> Int32 {
        guard let process else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    private var listeningLines: [Substring] {
        stdout.split(separator: "\n").filter { $0.contains("listening on http://") }
    }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }
    var databasePath: String { directory.appendingPathComponent("leaks.sqlite").path }

    /// The write token the server printed for the `default` project on its first start.
    var defaultToken: String? {
        stdout.split(whereSeparator: \.isWhitespace).last { $0.hasPrefix("lh_") }.map(String.init)
    }

    private func launch(_ arguments: [String], appendOutput: Bool) throws -> Process {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LEAKHISTORY_") }
        for url in [stdoutURL, stderrURL] where !appendOutput || !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let out = try FileHandle(forWritingTo: stdoutURL)
        let err = try FileHandle(forWritingTo: stderrURL)
        out.seekToEndOfFile()
        err.seekToEndOfFile()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return process
    }
}
