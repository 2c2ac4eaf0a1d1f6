import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LeakReport
import LeakRuntime
import LeakServer
import LeakStore

/// The real server on loopback over a fresh SQLite file, with a project `app` and its write
/// token; it can be stopped and started again on the same port and database (a server that goes
/// away and comes back).
final class UploadServer {
    let directory: URL
    let store: LeakStore
    let token: String
    private(set) var port = 0
    private var server: LeakServer?
    private var configuration = ServerConfiguration()

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("leakruntime-upload-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        configuration.port = 0
        configuration.threads = 2
        configuration.database = directory.appendingPathComponent("leaks.sqlite").path
        store = try LeakStore(database: configuration.database, options: configuration.storeOptions)
        token = try store.createProject("app").secret
        try start()
    }

    deinit {
        server?.stop(grace: .seconds(2))
        try? FileManager.default.removeItem(at: directory)
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts serving, on the port it had before if it was started already.
    func start() throws {
        configuration.port = port
        let server = LeakServer(configuration: configuration, store: store)
        port = try server.start()
        self.server = server
    }

    func stop() {
        server?.stop(grace: .seconds(2))
        server = nil
    }

    /// The runs stored for `commit`, as `GET /v1/projects/app/commits/{sha}` answers.
    func runs(at commit: String) throws -> [CommitResponse.Run] {
        var request = URLRequest(url: url.appendingPathComponent("v1/projects/app/commits/\(commit)"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let answer = Locked<(Data?, Int?)>((nil, nil))
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            answer.withLock { $0 = (data, (response as? HTTPURLResponse)?.statusCode) }
            done.signal()
        }.resume()
        done.wait()
        let (data, status) = answer.withLock { $0 }
        if status == 404 { return [] }
        guard status == 200, let data else { throw ServerAnswer(status: status, body: data.map { String(decoding: $0, as: UTF8.self) }) }
        return try JSONDecoder().decode(CommitResponse.self, from: data).runs
    }

    struct ServerAnswer: Error {
        var status: Int?
        var body: String?
    }
}
