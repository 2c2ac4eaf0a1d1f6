import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 connection to 127.0.0.1 kept open across requests, as a CI uploader with a
/// connection pool would use it. Not thread-safe: one connection per client thread.
///
/// ```swift
/// let connection = KeepAliveConnection(port: port)
/// let reply = try connection.request("GET", "/healthz")
/// ```
public final class KeepAliveConnection {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// A status and a body, read by `Content-Length`.
    public struct Reply: Sendable {
        public var status: Int
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public let port: Int
    /// A send or receive that takes longer than this fails instead of hanging the harness.
    public let timeoutSeconds: Int
    /// The loopback address the connection comes from (nil: the system's choice, 127.0.0.1).
    public let source: String?
    private var fd: Int32 = -1
    private var pending: [UInt8] = []
    /// The buffer `recv` reads into, kept: zeroing 64 KiB for every reply cost more than the reply.
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    public init(port: Int, timeoutSeconds: Int = 30, source: String? = nil) {
        self.port = port
        self.timeoutSeconds = timeoutSeconds
        self.source = source
    }

    deinit { disconnect() }

    /// Closes the socket; the next request opens a new one.
    public func disconnect() {
        if fd >= 0 { close(fd) }
        fd = -1
        pending.removeAll()
    }

    /// Sends one request and reads its reply. On any failure the connection is closed and the
    /// error thrown: whether the server acted on the request is then unknown to the caller.
    public func request(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) throws -> Reply {
        do {
            if fd < 0 { try connect() }
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
            head += "\r\n"
            // A small body goes in the head's send, as HTTP clients send a small request.
            var request = Data(head.utf8)
            if let body, body.count <= 64 * 1024 {
                request.append(body)
                try sendAll(request)
            } else {
                try sendAll(request)
                if let body { try sendAll(body) }
            }
            let reply = try readReply()
            return reply
        } catch {
            disconnect()
            throw error
        }
    }

    private func connect() throws {
        let socketFD: Int32
        do {
            socketFD = try LoopbackSocket.connect(port: port, source: source)
        } catch {
            throw Failure(description: error.description)
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socketFD, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var noDelay: Int32 = 1
        setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        fd = socketFD
    }

    private func sendAll(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let n = send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
                sent += n
            }
        }
    }

    /// Reads more bytes into `pending`; throws when the server closed or the timeout passed.
    private func fill() throws {
        var n: Int
        // A signal (libFuzzer's timer, for one) interrupts the wait without ending it.
        repeat { n = recv(fd, &chunk, chunk.count, 0) } while n < 0 && errno == EINTR
        guard n > 0 else {
            throw Failure(description: n == 0 ? "the server closed the connection before answering"
                : "recv: \(String(cString: strerror(errno)))")
        }
        pending.append(contentsOf: chunk[0..<n])
    }

    /// The status line and headers are read as bytes: the bench's client shares the machine's
    /// cores with the server it measures, and `components(separatedBy:)` and `trimmingCharacters`
    /// on every reply's headers cost it more than the request.
    private func readReply() throws -> Reply {
        var searched = 0
        var headEnd: Int?
        while true {
            headEnd = Self.blankLine(in: pending, from: searched)
            if headEnd != nil { break }
            searched = max(0, pending.count - 3)
            try fill()
        }
        let lines = pending[0..<headEnd!].split(separator: 10, omittingEmptySubsequences: false)
            .map { $0.last == 13 ? $0.dropLast() : $0 }
        let statusWords = lines[0].split(separator: UInt8(ascii: " "))
        guard statusWords.count >= 2, let status = Int(String(decoding: statusWords[1], as: UTF8.self)) else {
            throw Failure(description: "not an HTTP status line: \(String(decoding: lines[0], as: UTF8.self))")
        }
        var length = 0
        var closes = false
        var chunked = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = line[..<colon]
            let value = Self.trimmed(line[(colon + 1)...])
            if Self.ascii(name, equalsLowercased: "content-length") {
                length = Int(value) ?? 0
            } else if Self.ascii(name, equalsLowercased: "connection") {
                closes = value.lowercased() == "close"
            } else if Self.ascii(name, equalsLowercased: "transfer-encoding") {
                chunked = value.lowercased().contains("chunked")
            }
        }
        pending.removeFirst(headEnd! + 4)
        let body = chunked ? try readChunks() : try take(length)
        if closes { disconnect() }
        return Reply(status: status, body: body)
    }

    /// Where the first CRLF CRLF at or after `start` begins.
    private static func blankLine(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = start
        while index <= bytes.count - 4 {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// A header value without the spaces and tabs around it.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }

    /// Whether the header name `bytes` is `lowercased`, ignoring ASCII case.
    private static func ascii(_ bytes: ArraySlice<UInt8>, equalsLowercased lowercased: String) -> Bool {
        bytes.count == lowercased.utf8.count
            && zip(bytes, lowercased.utf8).allSatisfy { byte, expected in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == expected : byte == expected
            }
    }

    /// The next `count` bytes of the connection.
    private func take(_ count: Int) throws -> Data {
        while pending.count < count { try fill() }
        let bytes = Data(pending[0..<count])
        pending.removeFirst(count)
        return bytes
    }

    /// The next line, without its CRLF.
    private func line() throws -> String {
        while true {
            if let end = pending.indices.dropLast().first(where: { pending[$0] == 13 && pending[$0 + 1] == 10 }) {
                let text = String(decoding: pending[0..<end], as: UTF8.self)
                pending.removeFirst(end + 2)
                return text
            }
            try fill()
        }
    }

    /// A `Transfer-Encoding: chunked` body (as uvicorn sends, for the bench's peer): each chunk's
    /// hex size line, its bytes and a CRLF, up to the empty last chunk and its trailers.
    private func readChunks() throws -> Data {
        var body = Data()
        while true {
            let sizeText = try line().split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure(description: "not a chunk size: \(sizeText)")
            }
            if size == 0 {
                while try !line().isEmpty {}
                return body
            }
            body.append(try take(size))
            _ = try take(2)
        }
    }
}
