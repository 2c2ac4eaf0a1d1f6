import Foundation

extension KeyedDecodingContainer {
    /// Decodes the `schema` tag and refuses one this build cannot read, at that key's path.
    func acceptSchema(_ schema: SchemaVersion, forKey key: Key) throws {
        let tag = try decode(String.self, forKey: key)
        do {
            try schema.accept(tag)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: error.message)
        }
    }

    /// Decodes an ISO 8601 timestamp, with or without fractional seconds.
    func decodeTimestamp(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = ReportTimestamp.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "expected an ISO 8601 timestamp such as 2026-11-30T02:10:57.123Z, found \"\(text)\"")
        }
        return date
    }
}
