import Foundation

/// Appends checks to a leak report, one line per check, as each check finishes.
///
/// Each line goes out in a single `write(2)` on a descriptor opened with `O_APPEND`, so several
/// processes appending to one file never tear or interleave lines, and a crash loses nothing
/// already written.
///
/// ```swift
/// let writer = try NDJSONWriter(path: ".build/leakhistory/run.ndjson")
/// try writer.append(check)
/// ```
public final class NDJSONWriter: Sendable {
    public let path: String
    private let descriptor: Int32

    /// Opens (creating if needed) the report at `path`, creating missing parent folders.
    public init(path: String) throws(ReportWriteError) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ReportWriteError(path: path, problem: String(cString: strerror(errno)))
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Appends one check as one line.
    public func append(_ check: CheckRecord) throws(ReportWriteError) {
        let encoded: Data
        do {
            encoded = try Self.encoder.encode(check)
        } catch {
            throw ReportWriteError(path: path, problem: "cannot encode the check: \(error)")
        }
        var line = encoded
        line.append(UInt8(ascii: "\n"))
        try write(line)
    }

    private func write(_ line: Data) throws(ReportWriteError) {
        let result = line.withUnsafeBytes { bytes -> Int in
            var written = 0
            while written < bytes.count {
                let n = systemWrite(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return -Int(errno)
                }
                written += n
            }
            return written
        }
        if result < 0 {
            throw ReportWriteError(path: path, problem: String(cString: strerror(Int32(-result))))
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}

/// A report that could not be opened or written.
public struct ReportWriteError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var description: String { "cannot write the leak report \(path): \(problem)" }
}

/// `write(2)` from the C library Foundation brings in (Glibc, Darwin): one spelling everywhere.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
