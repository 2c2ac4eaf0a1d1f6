import Foundation
import LeakReport
import LeakStore

extension ServerConfiguration {
    /// The configuration file read when `--config` is not given, relative to the working directory.
    public static let defaultPath = "config/leakhistory.json"

    /// Reads the configuration: the file at `path` (a missing default file means built-in
    /// defaults; a missing explicit file is an error), then `LEAKHISTORY_*` overrides from
    /// `environment`.
    /// - Throws: `ConfigurationError` naming the file or variable at fault.
    public static func load(path: String?, environment: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        let file = path ?? defaultPath
        if FileManager.default.fileExists(atPath: file) {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError("cannot read the configuration file \(file)")
            }
            do {
                configuration = try JSONDecoder().decode(ServerConfiguration.self, from: data)
            } catch let error as DecodingError {
                throw ConfigurationError("\(file): \(error.keyPathDescription)")
            }
        } else if path != nil {
            throw ConfigurationError("the configuration file \(file) does not exist")
        }
        try configuration.applyEnvironment(environment)
        try configuration.validate()
        return configuration
    }

    /// Applies `LEAKHISTORY_HOST`, `_PORT`, `_DATABASE`, `_SYNCHRONOUS`, `_REQUIRE_READ_TOKEN`,
    /// `_THREADS`, `_MAX_BODY_BYTES`, `_RETENTION_DAYS` (0 or empty: keep everything),
    /// `_TRUSTED_PROXIES` (comma-separated; empty: none) and `_FORWARDED_HEADER`.
    public mutating func applyEnvironment(_ environment: [String: String]) throws {
        func integer(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let value = Int(text) else { throw ConfigurationError("\(name)=\(text): expected a whole number") }
            return value
        }
        if let value = environment["LEAKHISTORY_HOST"] { host = value }
        if let value = try integer("LEAKHISTORY_PORT") { port = value }
        if let value = environment["LEAKHISTORY_DATABASE"] { database = value }
        if let text = environment["LEAKHISTORY_SYNCHRONOUS"] {
            guard let value = StoreOptions.Synchronous(rawValue: text.lowercased()) else {
                throw ConfigurationError("LEAKHISTORY_SYNCHRONOUS=\(text): expected off, normal or full")
            }
            synchronous = value
        }
        if let text = environment["LEAKHISTORY_REQUIRE_READ_TOKEN"] {
            switch text.lowercased() {
            case "1", "true", "yes": requireReadToken = true
            case "0", "false", "no": requireReadToken = false
            default: throw ConfigurationError("LEAKHISTORY_REQUIRE_READ_TOKEN=\(text): expected true or false")
            }
        }
        if let value = try integer("LEAKHISTORY_THREADS") { threads = value }
        if let value = try integer("LEAKHISTORY_MAX_BODY_BYTES") { limits.maxBodyBytes = value }
        if let text = environment["LEAKHISTORY_TRUSTED_PROXIES"] {
            trustedProxies = try text.split(separator: ",").map { item in
                guard let range = AddressRange(String(item)) else {
                    throw ConfigurationError("LEAKHISTORY_TRUSTED_PROXIES=\(text): \"\(item.trimmingCharacters(in: .whitespaces))\" is not "
                        + "an address or network; expected e.g. 10.0.0.2,10.0.0.0/8,2001:db8::/32")
                }
                return range
            }
        }
        if let text = environment["LEAKHISTORY_FORWARDED_HEADER"] {
            guard let header = TrustedProxies.Header.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                throw ConfigurationError("LEAKHISTORY_FORWARDED_HEADER=\(text): expected X-Forwarded-For or Forwarded")
            }
            forwardedHeader = header
        }
        if environment["LEAKHISTORY_RETENTION_DAYS"]?.isEmpty == true {
            retentionDays = nil
        } else if let value = try integer("LEAKHISTORY_RETENTION_DAYS") {
            retentionDays = value == 0 ? nil : value
        }
    }

    /// Refuses values that cannot work, naming the setting.
    public func validate() throws {
        guard (0...65_535).contains(port) else { throw ConfigurationError("port \(port): expected 0 to 65535") }
        guard !database.isEmpty else { throw ConfigurationError("database: expected a file path or a postgres:// URL") }
        guard threads >= 0 else { throw ConfigurationError("threads \(threads): expected 0 (one per core) or more") }
        guard connectionLimit > 0 else { throw ConfigurationError("connectionLimit: expected at least 1") }
        guard connectionTimeoutSeconds > 0 else { throw ConfigurationError("connectionTimeoutSeconds: expected at least 1") }
        for (name, value) in [("workers", workers), ("queueLimit", queueLimit), ("perClientWorkers", perClientWorkers),
                              ("perClientQueue", perClientQueue), ("perClientConnectionLimit", perClientConnectionLimit),
                              ("requestDeadlineSeconds", requestDeadlineSeconds), ("queryTimeoutMs", queryTimeoutMs),
                              ("responseBytesPerClient", responseBytesPerClient), ("responseBytesTotal", responseBytesTotal)]
        where value < 1 {
            throw ConfigurationError("\(name) \(value): expected at least 1")
        }
        guard tokenMemorySeconds >= 0 else {
            throw ConfigurationError("tokenMemorySeconds \(tokenMemorySeconds): expected 0 (check every token on a worker first) or more")
        }
        // 2^43 bytes: SQLite's own ceiling for `mmap_size` is far below what an Int64 shift would wrap at.
        guard (0...(1 << 23)).contains(readerMemoryMapMiB) else {
            throw ConfigurationError("readerMemoryMapMiB \(readerMemoryMapMiB): expected 0 (read pages through a cache of each connection's own) to 8388608")
        }
        if let retentionDays, retentionDays < 1 {
            throw ConfigurationError("retentionDays \(retentionDays): expected at least 1, or leave it out to keep every record")
        }
        guard connectionMemoryBytes >= 4_096 else {
            throw ConfigurationError("connectionMemoryBytes \(connectionMemoryBytes): expected at least 4096 (headers must fit)")
        }
        guard limits.maxBodyBytes > 0, limits.maxDecompressedBytes > 0, limits.maxChecksPerRun > 0,
              limits.maxStringLength > 0, limits.maxMessageLength > 0, limits.maxRetainPathSteps > 0, limits.maxParents >= 0
        else { throw ConfigurationError("limits: every limit must be positive") }
    }
}

/// A configuration that cannot be used; the message names the file or variable.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
