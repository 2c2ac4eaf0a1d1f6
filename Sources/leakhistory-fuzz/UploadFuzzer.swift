import Foundation
import LeakServer
import LeakStore
import LoopbackClient
#if canImport(Glibc)
import Glibc
#endif

/// A real server in this process on a free loopback port, and one keep-alive connection to it:
/// each input becomes one upload (`FuzzedUpload`), and any 5xx, or no answer, is a failure.
///
/// libFuzzer calls one input at a time from one thread, and the replay mode does too; that
/// discipline, not a lock, is what makes the shared connection safe, hence `@unchecked Sendable`.
final class UploadFuzzer: @unchecked Sendable {
    static let shared = UploadFuzzer()

    private let server: LeakServer
    private let connection: KeepAliveConnection
    private let token: String

    private init() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-fuzz-\(getpid())")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.threads = 1
            configuration.synchronous = .off
            configuration.logRequests = false
            configuration.database = directory.appendingPathComponent("fuzz.sqlite").path
            let store = try LeakStore(path: configuration.database, options: StoreOptions(synchronous: .off))
            token = try store.createProject("app").secret
            server = LeakServer(configuration: configuration, store: store)
            connection = KeepAliveConnection(port: try server.start(), timeoutSeconds: 30)
        } catch {
            fatalError("the fuzz server could not start: \(error)")
        }
    }

    /// Sends one input; returns a description of the failure, or nil when the server answered
    /// below 500.
    func check(_ input: Data) -> String? {
        let upload = FuzzedUpload(input)
        var headers = upload.headers
        headers["Authorization"] = "Bearer \(token)"
        do {
            let reply = try connection.request("POST", "/v1/projects/app/runs", body: upload.body, headers: headers)
            return reply.status >= 500 ? "the server answered \(reply.status): \(reply.text.prefix(500))" : nil
        } catch {
            return "the server did not answer: \(error)"
        }
    }
}
