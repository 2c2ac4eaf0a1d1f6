import Foundation
import LeakServer
import LeakStore

/// A real server on an ephemeral port over a fresh SQLite file in its own temp folder, with a
/// project (`app` unless told) and its write token. Stopped and deleted when released. Given a
/// `TestDatabase`, it serves that database instead (PostgreSQL: several servers on one
/// database, the first creating `app`, the others given its token).
final class TestServer {
    let directory: URL
    let store: LeakStore
    let server: LeakServer
    let port: Int
    let token: String
    let project: String

    /// - Parameter configure: adjusts the configuration (limits, read tokens) before start.
    init(database: TestDatabase? = nil, token existingToken: String? = nil, project: String = "app",
         configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        self.project = project
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("leakhistory-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.threads = 2
        configuration.database = database?.location ?? directory.appendingPathComponent("leaks.sqlite").path
        configure(&configuration)
        store = try LeakStore(database: configuration.database, options: configuration.storeOptions)
        token = try existingToken ?? store.createProject(project).secret
        server = LeakServer(configuration: configuration, store: store)
        port = try server.start()
    }

    deinit {
        server.stop(grace: .seconds(2))
        try? FileManager.default.removeItem(at: directory)
    }

    var client: HTTPClient { HTTPClient(port: port) }

    var runsPath: String { "/v1/projects/\(project)/runs" }

    /// Uploads `body` to `app` with its write token unless other headers are given.
    func upload(_ body: Data, headers: [String: String]? = nil,
                framing: HTTPClient.BodyFraming = .contentLength) throws -> HTTPClient.Reply {
        try client.post(runsPath, body: body, headers: headers ?? ["Authorization": "Bearer \(token)"], framing: framing)
    }

    /// Row counts of every table an upload writes to.
    func rowCounts() throws -> [String: Int64] {
        try store.read { db in
            var counts: [String: Int64] = [:]
            for table in ["runs", "checks", "commits", "commit_parents", "types", "scenarios", "leak_states"] {
                counts[table] = try db.scalarInt("SELECT count(*) FROM \(table)") ?? -1
            }
            return counts
        }
    }

    /// True when nothing from any upload is stored.
    func nothingStored() throws -> Bool {
        try rowCounts().values.allSatisfy { $0 == 0 }
    }
}
