import Foundation
import LeakStore

/// Everything `leakhistory-server` can be told, with the defaults documented in
/// `config/leakhistory.json`. A key left out of the file keeps its default; an unknown key is
/// an error, so that a typo does not silently fall back to a default.
public struct ServerConfiguration: Sendable, Hashable {
    public var host = "127.0.0.1"
    /// 0 asks the system for any free port; the listening line says which.
    public var port = 8080
    public var database = "./leakhistory.sqlite"
    public var synchronous = StoreOptions.Synchronous.normal
    /// When true, read routes need a token of the project too (any scope); the dashboard takes
    /// a session cookie from its login form instead.
    public var requireReadToken = false
    /// Under `requireReadToken`: whether `/healthz` still answers without a token (for load
    /// balancers and probes) — otherwise it needs a live token of any project.
    public var healthzWithoutToken = true
    /// Under `requireReadToken`: whether `/metrics` answers without a token.
    public var metricsWithoutToken = false
    /// libmicrohttpd's I/O threads; 0 means one thread per core. They only move bytes.
    public var threads = 0
    /// The threads that run handlers (queries, pages, uploads); as many again, three quarters,
    /// run at the lowest CPU priority for clients that keep more than one worker busy. A quarter
    /// of them never start a big write (`WorkerPool.readReserve`): 8 run big uploads, 2 are kept for
    /// reads and small writes.
    public var workers = 10
    /// Requests waiting for a worker, across all clients: beyond it, 503 with Retry-After.
    public var queueLimit = 4_096
    /// Workers one client (IP address) may hold at once; its other requests wait their turn.
    public var perClientWorkers = 2
    /// Requests one client may have waiting for a worker: beyond it, 503 with Retry-After. As
    /// many as its connection slots, so that a client whose requests all found a slot (a CI
    /// fleet behind one address) waits its turn instead of being sent away.
    public var perClientQueue = 64
    /// SQLite read connections; as many as workers and background workers, so that a query
    /// never waits for one.
    public var readerConnections = 18
    /// MiB of the SQLite file each read connection maps into memory
    /// (`StoreOptions.readerMemoryMapBytes`); 0 maps nothing.
    public var readerMemoryMapMiB = 1_024
    /// Connections open at once (the server raises its open-file limit to fit).
    public var connectionLimit = 4_096
    /// Connections with a request on them, per client (`ClientKey`: the token a request showed
    /// together with its address, else its address); beyond, 503 with Retry-After. A client's connections that have sent no
    /// request headers for a second give way to its new ones.
    public var perClientConnectionLimit = 64
    /// The proxies and load balancers (addresses or CIDR networks, IPv4 or IPv6) whose
    /// `forwardedHeader` names the client; every per-client limit, the fairness order and the
    /// request log then use that client. Empty: every peer is the client.
    public var trustedProxies: [AddressRange] = []
    /// The header the trusted proxies write: `X-Forwarded-For` or `Forwarded` (RFC 7239).
    public var forwardedHeader = TrustedProxies.Header.xForwardedFor
    /// Bytes a connection may use for its request line, headers and buffers (beyond: 431).
    public var connectionMemoryBytes = 32_768
    /// A connection with no traffic for this many seconds is closed.
    public var connectionTimeoutSeconds = 30
    /// A request must arrive in full (headers and body) within this many seconds of its
    /// connection opening or the previous answer, however steadily it trickles.
    public var requestDeadlineSeconds = 30
    /// A read query (one page or answer) is stopped after this many milliseconds: 503.
    public var queryTimeoutMs = 10_000
    /// Bytes of answers not yet read by one client, and by all: beyond either, new requests get 503.
    public var responseBytesPerClient = 64 * 1024 * 1024
    public var responseBytesTotal = 256 * 1024 * 1024
    /// One line per answered request on stderr; off for benchmarks and load tests, whose
    /// request rate would make the log the thing being measured. Problems are logged either way.
    public var logRequests = true
    public var limits = IngestLimits()
    /// Retention: the full records of checks (each leak's file, line, retain path and message)
    /// of runs received more than this many days ago are dropped in the background; the
    /// per-key states that diffs, trends and first-seen read stay. Nil keeps everything.
    public var retentionDays: Int?
    /// How long a token found live is remembered as live, so that an upload with it has its body
    /// read as soon as its headers are in, with no wait for a worker's database check first
    /// (the token is still checked against the database, in the transaction that would store
    /// the upload, before anything is written); 0 remembers nothing. A token revoked by another
    /// process may have one upload's body read and parsed, then refused 401, within this long
    /// of its last use.
    public var tokenMemorySeconds = 10

    public init() {}

    /// The thread pool size to use: `threads`, or the core count when 0.
    public var effectiveThreads: Int {
        threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount
    }

    /// How the server opens its store: the reader pool and the query time budget.
    public var storeOptions: StoreOptions {
        StoreOptions(synchronous: synchronous, readerCount: max(readerConnections, 1),
                     queryTimeBudget: .milliseconds(queryTimeoutMs), tokenMemory: .seconds(max(0, tokenMemorySeconds)),
                     readerMemoryMapBytes: Int64(max(0, readerMemoryMapMiB)) << 20)
    }
}

extension ServerConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, database, synchronous, requireReadToken, healthzWithoutToken, metricsWithoutToken
        case threads, workers, queueLimit, perClientWorkers, perClientQueue, readerConnections, readerMemoryMapMiB
        case connectionLimit, perClientConnectionLimit, trustedProxies, forwardedHeader, connectionMemoryBytes, connectionTimeoutSeconds
        case requestDeadlineSeconds, queryTimeoutMs, responseBytesPerClient, responseBytesTotal, limits, logRequests
        case retentionDays, tokenMemorySeconds
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try ConfigurationKeys.refuseUnknown(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let d = ServerConfiguration()
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? d.host
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? d.port
        database = try c.decodeIfPresent(String.self, forKey: .database) ?? d.database
        synchronous = try c.decodeIfPresent(StoreOptions.Synchronous.self, forKey: .synchronous) ?? d.synchronous
        requireReadToken = try c.decodeIfPresent(Bool.self, forKey: .requireReadToken) ?? d.requireReadToken
        healthzWithoutToken = try c.decodeIfPresent(Bool.self, forKey: .healthzWithoutToken) ?? d.healthzWithoutToken
        metricsWithoutToken = try c.decodeIfPresent(Bool.self, forKey: .metricsWithoutToken) ?? d.metricsWithoutToken
        threads = try c.decodeIfPresent(Int.self, forKey: .threads) ?? d.threads
        workers = try c.decodeIfPresent(Int.self, forKey: .workers) ?? d.workers
        queueLimit = try c.decodeIfPresent(Int.self, forKey: .queueLimit) ?? d.queueLimit
        perClientWorkers = try c.decodeIfPresent(Int.self, forKey: .perClientWorkers) ?? d.perClientWorkers
        perClientQueue = try c.decodeIfPresent(Int.self, forKey: .perClientQueue) ?? d.perClientQueue
        readerConnections = try c.decodeIfPresent(Int.self, forKey: .readerConnections) ?? d.readerConnections
        readerMemoryMapMiB = try c.decodeIfPresent(Int.self, forKey: .readerMemoryMapMiB) ?? d.readerMemoryMapMiB
        connectionLimit = try c.decodeIfPresent(Int.self, forKey: .connectionLimit) ?? d.connectionLimit
        perClientConnectionLimit = try c.decodeIfPresent(Int.self, forKey: .perClientConnectionLimit) ?? d.perClientConnectionLimit
        trustedProxies = try c.decodeIfPresent([AddressRange].self, forKey: .trustedProxies) ?? d.trustedProxies
        forwardedHeader = try c.decodeIfPresent(TrustedProxies.Header.self, forKey: .forwardedHeader) ?? d.forwardedHeader
        connectionMemoryBytes = try c.decodeIfPresent(Int.self, forKey: .connectionMemoryBytes) ?? d.connectionMemoryBytes
        connectionTimeoutSeconds = try c.decodeIfPresent(Int.self, forKey: .connectionTimeoutSeconds) ?? d.connectionTimeoutSeconds
        requestDeadlineSeconds = try c.decodeIfPresent(Int.self, forKey: .requestDeadlineSeconds) ?? d.requestDeadlineSeconds
        queryTimeoutMs = try c.decodeIfPresent(Int.self, forKey: .queryTimeoutMs) ?? d.queryTimeoutMs
        responseBytesPerClient = try c.decodeIfPresent(Int.self, forKey: .responseBytesPerClient) ?? d.responseBytesPerClient
        responseBytesTotal = try c.decodeIfPresent(Int.self, forKey: .responseBytesTotal) ?? d.responseBytesTotal
        limits = try c.decodeIfPresent(IngestLimits.self, forKey: .limits) ?? d.limits
        logRequests = try c.decodeIfPresent(Bool.self, forKey: .logRequests) ?? d.logRequests
        retentionDays = try c.decodeIfPresent(Int.self, forKey: .retentionDays) ?? d.retentionDays
        tokenMemorySeconds = try c.decodeIfPresent(Int.self, forKey: .tokenMemorySeconds) ?? d.tokenMemorySeconds
    }
}
