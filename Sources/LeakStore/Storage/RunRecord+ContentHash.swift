import Foundation
import LeakReport

extension RunRecord {
    /// SHA-256 (hex) of the run's decoded values, so that a retry with different whitespace or
    /// key order hashes the same and any changed value does not.
    ///
    /// Each value goes in with its length in front (or a marker when absent), which keeps
    /// `["ab", "c"]` and `["a", "bc"]` apart. Built by hand: re-encoding the run as JSON cost as
    /// much as decoding it. Hashed 64 KiB at a time: the byte form of a 100,000-check run would
    /// take tens of megabytes.
    public func contentHash() -> String {
        SHA256.hex { feed in
            var bytes = CanonicalBytes()
            add(to: &bytes, flushing: feed)
            bytes.bytes.withUnsafeBytes(feed)
        }
    }

    private func add(to bytes: inout CanonicalBytes, flushing feed: (UnsafeRawBufferPointer) -> Void) {
        bytes.add(SchemaVersion.run.description)
        bytes.add(project)
        bytes.add(commit)
        bytes.add(branch)
        bytes.add(parents.count)
        for parent in parents { bytes.add(parent) }
        bytes.add(environment)
        bytes.add(runKey)
        bytes.add(startedAt.timeIntervalSince1970)
        bytes.add(tool?.name)
        bytes.add(tool?.version)
        bytes.add(checks.count)
        for check in checks {
            bytes.add(check.scenario)
            bytes.add(check.file)
            bytes.add(check.line)
            bytes.add(check.type)
            bytes.add(check.outcome.rawValue)
            bytes.add(check.waitedMs)
            bytes.add(check.timeoutMs)
            bytes.add(check.lifecycle)
            bytes.add(check.retainPath?.count ?? -1)
            for step in check.retainPath ?? [] {
                bytes.add(step.holder)
                bytes.add(step.property)
                bytes.add(step.kind.rawValue)
            }
            bytes.add(check.fingerprint)
            bytes.add(check.message)
            bytes.add(check.timestamp.timeIntervalSince1970)
            bytes.add(check.source?.rawValue)
            // Attempts other than the defaults (one, leaked when the check leaked) go in after a tag
            // no check's first value starts with: a run without them hashes as it did before they
            // existed (its stored hash still matches a retry), and `attempts: 1` as no attempts.
            if check.attemptCount != 1 || check.leakedAttemptCount != (check.outcome == .leaked ? 1 : 0) {
                bytes.bytes.append(2)
                bytes.add(check.attemptCount)
                bytes.add(check.leakedAttemptCount)
            }
            if bytes.bytes.count >= StoreTuning.contentHashChunkBytes {
                bytes.bytes.withUnsafeBytes(feed)
                bytes.bytes.removeAll(keepingCapacity: true)
            }
        }
    }
}

/// An unambiguous byte form of a sequence of values.
private struct CanonicalBytes {
    var bytes: [UInt8] = []

    mutating func add(_ text: String?) {
        guard let text else {
            bytes.append(0)
            return
        }
        bytes.append(1)
        add(text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }

    mutating func add(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func add(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
