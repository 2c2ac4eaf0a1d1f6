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

    var storeOptions: StoreOptions {
        StoreOptions(synchronous: synchronous, readerCount: max(readerConnections, 1))
    }
}

/// Sizes the server refuses to go past, each with its own message.
public struct IngestLimits: Sendable, Hashable, Codable {
    /// Request body as received (compressed or not) → 413 beyond it.
    public var maxBodyBytes = 32 * 1024 * 1024
    /// A gzip body once inflated → 413 beyond it.
    public var maxDecompressedBytes = 256 * 1024 * 1024
    public var maxChecksPerRun = 100_000
    /// Names, scenarios, types, files, keys: characters (not bytes).
    public var maxStringLength = 1_024
    /// Check messages, which carry more text.
    public var maxMessageLength = 16_384
    public var maxRetainPathSteps = 256
    public var maxParents = 64

    public init() {}

    enum CodingKeys: String, CodingKey, CaseIterable {
        case maxBodyBytes, maxDecompressedBytes, maxChecksPerRun, maxStringLength, maxMessageLength
        case maxRetainPathSteps, maxParents
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try ConfigurationKeys.refuseUnknown(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
        let d = IngestLimits()
        maxBodyBytes = try c.decodeIfPresent(Int.self, forKey: .maxBodyBytes) ?? d.maxBodyBytes
        maxDecompressedBytes = try c.decodeIfPresent(Int.self, forKey: .maxDecompressedBytes) ?? d.maxDecompressedBytes
        maxChecksPerRun = try c.decodeIfPresent(Int.self, forKey: .maxChecksPerRun) ?? d.maxChecksPerRun
        maxStringLength = try c.decodeIfPresent(Int.self, forKey: .maxStringLength) ?? d.maxStringLength
        maxMessageLength = try c.decodeIfPresent(Int.self, forKey: .maxMessageLength) ?? d.maxMessageLength
        maxRetainPathSteps = try c.decodeIfPresent(Int.self, forKey: .maxRetainPathSteps) ?? d.maxRetainPathSteps
        maxParents = try c.decodeIfPresent(Int.self, forKey: .maxParents) ?? d.maxParents
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

/// Keys starting with `_` are comments; any other key the type does not know is an error.
enum ConfigurationKeys {
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func refuseUnknown(in decoder: any Decoder, known: [String]) throws {
        let all = try decoder.container(keyedBy: AnyKey.self)
        for key in all.allKeys where !key.stringValue.hasPrefix("_") && !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: all,
                debugDescription: "unknown setting; known settings here are \(known.joined(separator: ", "))")
        }
    }
}
