import Foundation
import LoopbackClient
import LeakReport
import LeakStore
#if canImport(Glibc)
import Glibc
#endif

/// A general-purpose peer for the ingest suite: Datasette (`datasette` on PATH, else the one
/// `make deps-peer` installs in `.build/peer`; issue 15 names 1.0a41) serving a WAL SQLite
/// database whose `checks` table has the columns a LeakHistory upload carries, written through
/// its JSON insert API, `POST /peer/checks/-/insert`, with a signed token of the root actor,
/// which the configuration allows `insert-row`.
final class DatasettePeer {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    let process = Process()
    let port: Int
    let token: String
    let version: String

    var memory: ProcessMemory? { ProcessMemory.of(pid: process.processIdentifier) }

    /// Creates the database in `folder`, starts Datasette on a free port and waits (30 s at
    /// most) until it answers. - Throws: `Missing` when `datasette` is not installed.
    init(folder: URL) throws {
        guard let executable = Self.executable else {
            throw Missing(description: "datasette is neither on PATH nor in .build/peer (make deps-peer, or pip install datasette==1.0a41)")
        }
        let database = folder.appendingPathComponent("peer.db").path
        let connection = try SQLiteConnection(path: database, mode: .readWrite)
        guard try connection.scalarText("PRAGMA journal_mode = WAL") == "wal" else { throw BenchError("the peer's database is not in WAL mode") }
        try connection.execute("""
            CREATE TABLE checks (
                id INTEGER PRIMARY KEY, run_key TEXT NOT NULL, commit_sha TEXT NOT NULL, branch TEXT, environment TEXT NOT NULL,
                scenario TEXT NOT NULL, type TEXT NOT NULL, outcome TEXT NOT NULL, waited_ms REAL NOT NULL, timeout_ms INTEGER NOT NULL,
                file TEXT NOT NULL, line INTEGER NOT NULL, lifecycle TEXT NOT NULL, fingerprint TEXT, retain_path TEXT, message TEXT,
                source TEXT, checked_at TEXT NOT NULL)
            """)
        let config = folder.appendingPathComponent("peer-config.json")
        try Data(#"{"permissions": {"insert-row": {"id": "root"}}}"#.utf8).write(to: config)
        let secret = UUID().uuidString
        let versionRun = try ChildProcess.run(executable, ["--version"], in: folder, environment: ProcessInfo.processInfo.environment)
        version = versionRun.stdout.split(separator: " ").last.map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
        let tokenRun = try ChildProcess.run(executable, ["create-token", "root", "--secret", secret], in: folder,
                                            environment: ProcessInfo.processInfo.environment)
        token = tokenRun.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard tokenRun.status == 0, !token.isEmpty else { throw BenchError("datasette create-token failed: \(tokenRun.stderr)") }
        port = try Self.freePort()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", database, "--port", "\(port)", "--secret", secret, "--config", config.path,
                             "--setting", "max_insert_rows", "1000"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let probe = KeepAliveConnection(port: port, timeoutSeconds: 5)
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? probe.request("GET", "/-/versions.json"))?.status != 200 {
            guard process.isRunning, ContinuousClock.now < deadline else {
                stop()
                throw BenchError("datasette did not answer on port \(port) within 30 s")
            }
            usleep(100_000)
        }
    }

    /// SIGTERM, then SIGKILL when it has not gone within 5 s: uvicorn's graceful shutdown waits
    /// for keep-alive connections, and a bench must never hang on its peer.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// `{"rows": [...], "return": false}`: the run's checks as rows of the peer's table.
    static func insertBody(_ run: RunRecord) throws -> Data {
        struct Row: Encodable {
            var run_key, commit_sha: String
            var branch: String?
            var environment, scenario, type, outcome: String
            var waited_ms: Double
            var timeout_ms: Int
            var file: String
            var line: Int
            var lifecycle: String
            var fingerprint, retain_path, message, source: String?
            var checked_at: String
        }
        struct Body: Encodable {
            var rows: [Row]
            var `return` = false
        }
        let encoder = JSONEncoder()
        let rows = try run.checks.map { check in
            Row(run_key: run.runKey, commit_sha: run.commit, branch: run.branch, environment: run.environment,
                scenario: check.scenario, type: check.type, outcome: check.outcome.rawValue, waited_ms: check.waitedMs,
                timeout_ms: check.timeoutMs, file: check.file, line: check.line, lifecycle: check.lifecycle,
                fingerprint: check.fingerprint,
                retain_path: try check.retainPath.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
                message: check.message, source: check.source?.rawValue, checked_at: ReportTimestamp.string(from: check.timestamp))
        }
        return try encoder.encode(Body(rows: rows))
    }

    /// `datasette` on PATH, else `.build/peer/bin/datasette` (`make deps-peer`), `.build` being
    /// the folder the bench was built in (`.build/release` links to a folder deeper down).
    private static var executable: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        var build = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while build.path != "/", build.lastPathComponent != ".build" { build.deleteLastPathComponent() }
        let peer = build.appendingPathComponent("peer/bin/datasette").path
        return (path.split(separator: ":").map { "\($0)/datasette" } + [peer]).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A loopback port nothing listens on now: bind to 0, read it, close.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("could not find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
