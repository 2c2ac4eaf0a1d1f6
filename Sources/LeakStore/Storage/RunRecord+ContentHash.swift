import Foundation
import LeakReport

extension RunRecord {
    /// SHA-256 (hex) of the run's canonical JSON (sorted keys, decoded values), so that a retry
    /// with different whitespace or key order hashes the same, and any changed value does not.
    public func contentHash() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return SHA256.hex(try encoder.encode(self))
    }
}
