import Foundation
import LeakStore

/// The LeakHistory HTTP service: libmicrohttpd in front, a `LeakStorage` behind (SQLite or
/// PostgreSQL; the server does not know which).
///
/// ```swift
/// let store = try LeakStore(database: configuration.database, options: …)
/// let server = LeakServer(configuration: configuration, store: store)
/// let port = try server.start()
/// …
/// server.stop()
/// ```
public final class LeakServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: any LeakStorage
    /// Every route the server answers, as registered.
    public let router: Router
    private let http: MicroHTTPDServer

    /// Builds the routes; nothing listens until `start()`.
    public init(configuration: ServerConfiguration, store: any LeakStorage) {
        self.configuration = configuration
        self.store = store
        var router = Router()
        Routes.register(in: &router)
        self.router = router
        let metrics = ServerMetrics()
        let context = RequestContext(store: store, configuration: configuration, metrics: metrics)
        let dispatcher = Dispatcher(router: router, context: context)
        http = MicroHTTPDServer(
            options: .init(host: configuration.host, port: UInt16(configuration.port),
                           threads: configuration.effectiveThreads, connectionLimit: configuration.connectionLimit,
                           connectionTimeoutSeconds: configuration.connectionTimeoutSeconds,
                           maxBodyBytes: configuration.limits.maxBodyBytes),
            inFlight: metrics.inFlight,
            respond: { dispatcher.dispatch($0) })
    }

    /// Starts listening and returns the port (the real one when the configuration says 0).
    /// - Throws: `ServerStartError` when the address cannot be bound.
    @discardableResult
    public func start() throws -> Int {
        Int(try http.start())
    }

    /// Stops accepting connections, lets requests in flight finish (up to `grace`), stops, and
    /// closes the store (SQLite checkpoints its write-ahead log into the database file).
    public func stop(grace: Duration = .seconds(10)) {
        http.stop(grace: grace)
        do {
            try store.close()
        } catch {
            RequestLog.problem("closing the database at shutdown failed: \(error) (with SQLite the data is safe in the -wal file)")
        }
    }
}
