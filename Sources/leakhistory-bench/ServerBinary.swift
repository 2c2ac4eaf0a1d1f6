import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `leakhistory-server` executable (built beside this one) as a child process on a
/// free loopback port, its request log off and its stderr kept in a file for the report.
final class ServerBinary {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let process = Process()
    let port: Int
    let logPath: String

    var pid: Int32 { process.processIdentifier }

    /// The executable next to `leakhistory-bench`: `make` builds both into the same folder.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("leakhistory-server")
    }

    /// Writes a configuration (request log off, `threads`) in `folder`, else beside the SQLite
    /// file `database`, starts the server and waits (10 s at most) for its "listening on" line.
    init(database: String, folder: URL? = nil, threads: Int = 0, extraSettings: String = "") throws {
        let folder = folder ?? URL(fileURLWithPath: database).deletingLastPathComponent()
        let config = folder.appendingPathComponent("server-\(UUID().uuidString.prefix(8)).json")
        try Data("""
            {"logRequests": false, "threads": \(threads)\(extraSettings.isEmpty ? "" : ", " + extraSettings)}
            """.utf8).write(to: config)
        logPath = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-server-\(getpid())-\(UUID().uuidString.prefix(8)).log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = Self.executable
        process.arguments = ["--config", config.path, "--port", "0", "--database", database]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()

        // The line arrives on a pipe; a reader thread hands it over, with a deadline here.
        let found = Locked<Int?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let reader = output.fileHandleForReading
        Thread {
            var text = ""
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
                if let range = text.range(of: "listening on http://"),
                   let colon = text[range.upperBound...].firstIndex(of: ":") {
                    let digits = text[text.index(after: colon)...].prefix { $0.isNumber }
                    if let port = Int(digits), text[text.index(after: colon)...].contains("\n") {
                        found.withLock { $0 = port }
                        break
                    }
                }
            }
            ready.signal()
            // Keep draining, so the server never blocks on a full pipe.
            while !reader.availableData.isEmpty {}
        }.start()
        _ = ready.wait(timeout: .now() + 10)
        guard let port = found.value else {
            process.terminate()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw Failure(description: "leakhistory-server did not say it was listening within 10 s; its stderr: \(log)")
        }
        self.port = port
    }

    /// SIGKILL: no chance to finish requests or checkpoint; waits until the process is gone.
    func kill9() {
        kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, the orderly stop; waits until the process is gone.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    var isRunning: Bool { process.isRunning }

    /// `VmRSS`/`VmHWM` of the server process.
    var memory: ProcessMemory? { ProcessMemory.of(pid: pid) }

    /// The server's stderr so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// `leakhistory-server projects create NAME --database PATH`: the new project's write token.
    static func createProject(_ name: String, database: String) throws -> String {
        let result = try ChildProcess.run(executable.path, ["--database", database, "projects", "create", name],
                                          in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                                          environment: ProcessInfo.processInfo.environment)
        let token = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !token.isEmpty else {
            throw Failure(description: "leakhistory-server projects create \(name) failed (exit \(result.status)): \(result.stderr)")
        }
        return token
    }
}
