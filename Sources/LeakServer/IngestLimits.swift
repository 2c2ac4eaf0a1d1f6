import Foundation

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
