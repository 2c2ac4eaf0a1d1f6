import Foundation
import LeakStore

/// Everything `leakhistory-server` can be told, with the defaults documented in
/// `config/leakhistory.json`. A key left out of the file keeps its default; an unknown key is
/// an error, so that a typo does not silently fall back to a default.
public struct ServerConfiguration: Sendable, Hashable {
    public var host = "127.0.0.1"
    /// 0 asks the system for any free port; the listening line says which.
    public var port = 8080
    /// A SQLite file path (or `sqlite:///path`), or a `postgres://user@host:port/db` URL.
    public var database = "./leakhistory.sqlite"
    public var synchronous = StoreOptions.Synchronous.normal
    /// When true, read routes need a token of the project too (any scope).
    public var requireReadToken = false
    /// libmicrohttpd's thread pool; 0 means one thread per core.
    public var threads = 0
    public var readerConnections = 4
    public var connectionLimit = 512
    /// An idle or stalled connection is closed after this many seconds.
    public var connectionTimeoutSeconds = 30
    /// One line per answered request on stderr; off for benchmarks and load tests, whose
    /// request rate would make the log the thing being measured. Problems are logged either way.
    public var logRequests = true
    public var limits = IngestLimits()

    public init() {}

    /// The thread pool size to use: `threads`, or the core count when 0.
    public var effectiveThreads: Int {
        threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount
    }

    public var storeOptions: StoreOptions {
        StoreOptions(synchronous: synchronous, readerCount: max(readerConnections, 1))
    }
}

extension ServerConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case host, port, database, synchronous, requireReadToken, threads, readerConnections
        case connectionLimit, connectionTimeoutSeconds, limits, logRequests
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
        threads = try c.decodeIfPresent(Int.self, forKey: .threads) ?? d.threads
        readerConnections = try c.decodeIfPresent(Int.self, forKey: .readerConnections) ?? d.readerConnections
        connectionLimit = try c.decodeIfPresent(Int.self, forKey: .connectionLimit) ?? d.connectionLimit
        connectionTimeoutSeconds = try c.decodeIfPresent(Int.self, forKey: .connectionTimeoutSeconds) ?? d.connectionTimeoutSeconds
        limits = try c.decodeIfPresent(IngestLimits.self, forKey: .limits) ?? d.limits
        logRequests = try c.decodeIfPresent(Bool.self, forKey: .logRequests) ?? d.logRequests
    }
}
