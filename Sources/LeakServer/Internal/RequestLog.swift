import Foundation
import LeakReport

/// One line per answered request on stderr, led by the client's address (behind a trusted proxy,
/// the real client's): `2026-11-30T02:10:57.123Z 192.0.2.7 POST /v1/projects/app/runs 201 3.1ms 512B`.
enum RequestLog {
    static func write(client: ClientAddress, method: String, path: String, status: Int, seconds: Double, bytesIn: Int,
                      note: String? = nil) {
        let ms = (seconds * 10_000).rounded() / 10
        var line = "\(ReportTimestamp.string(from: Date())) \(client) \(method) \(sanitize(path)) \(status) \(ms)ms \(bytesIn)B"
        if let note { line += " " + sanitize(note) }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// What background work did (retention), for the operator.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data("\(ReportTimestamp.string(from: Date())) \(text)\n".utf8))
    }

    /// Something the operator should see that is not a request, e.g. the cause of a 500.
    static func problem(_ text: String) {
        FileHandle.standardError.write(Data("\(ReportTimestamp.string(from: Date())) error: \(text)\n".utf8))
    }

    /// Keeps a client-controlled path from forging log lines.
    private static func sanitize(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
