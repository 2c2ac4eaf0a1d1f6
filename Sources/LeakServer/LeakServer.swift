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
    /// Removes abandoned uploads, and drops old check records when `retentionDays` is set, in the background.
    private let retention: RetentionSweeper

    /// Builds the routes; nothing listens until `start()`.
    public init(configuration: ServerConfiguration, store: any LeakStorage) {
        self.configuration = configuration
        self.store = store
        var router = Router()
        Routes.register(in: &router)
        self.router = router
        // An upload is given up by its client long before twice its deadline; one still pending
        // after that was left by a server that died.
        retention = RetentionSweeper(store: store, days: configuration.retentionDays,
                                     abandonedAfter: .seconds(2 * max(configuration.requestDeadlineSeconds, 60)))
        let metrics = ServerMetrics()
        let context = RequestContext(store: store, configuration: configuration, metrics: metrics,
                                     sessions: DashboardSessions())
        let dispatcher = Dispatcher(router: router, context: context)
        let c = configuration
        http = MicroHTTPDServer(
            options: .init(host: c.host, port: UInt16(c.port), threads: c.effectiveThreads,
                           connectionLimit: c.connectionLimit, perClientConnectionLimit: c.perClientConnectionLimit,
                           trustedProxies: TrustedProxies(ranges: c.trustedProxies, header: c.forwardedHeader),
                           connectionMemoryBytes: c.connectionMemoryBytes, idleTimeoutSeconds: c.connectionTimeoutSeconds,
                           requestDeadline: .seconds(c.requestDeadlineSeconds), maxBodyBytes: c.limits.maxBodyBytes,
                           workers: .init(workers: c.workers, queueLimit: c.queueLimit, perClientRunning: c.perClientWorkers,
                                          perClientQueued: c.perClientQueue),
                           responseBytesPerClient: c.responseBytesPerClient, responseBytesTotal: c.responseBytesTotal),
            inFlight: metrics.inFlight, refusals: metrics.refusals,
            credential: { TokenCheck.rememberedID($0, context) },
            admit: { dispatcher.admit($0) },
            respond: { dispatcher.dispatch($0, answer: $1) })
    }

    /// Starts listening and returns the port (the real one when the configuration says 0).
    /// - Throws: `ServerStartError` when the address cannot be bound.
    @discardableResult
    public func start() throws -> Int {
        let port = Int(try http.start())
        retention.start()
        return port
    }

    /// Closes the listening socket; requests in flight go on. `stop` does it too, so call this
    /// first only to tell someone that new connections are refused before waiting for the rest.
    public func stopAccepting() {
        http.stopAccepting()
    }

    /// Stops accepting connections, lets requests in flight finish (up to `grace`), stops, and
    /// closes the store (SQLite checkpoints its write-ahead log into the database file).
    public func stop(grace: Duration = .seconds(10)) {
        retention.stop()
        http.stop(grace: grace)
        do {
            try store.close()
        } catch {
            RequestLog.problem("closing the database at shutdown failed: \(error) (with SQLite the data is safe in the -wal file)")
        }
    }
}
