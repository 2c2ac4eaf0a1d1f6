import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 client over a TCP socket, so tests control every byte: raw bodies,
/// invalid UTF-8, chunked bodies with no length, and `Expect: 100-continue`.
struct HTTPClient {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The `error.code` and `error.message` of a JSON error body.
        var error: (code: String, message: String)? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                  let error = object["error"] as? [String: Any],
                  let code = error["code"] as? String, let message = error["message"] as? String
            else { return nil }
            return (code, message)
        }

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
    }

    enum BodyFraming {
        /// `Content-Length`, body sent straight after the headers.
        case contentLength
        /// `Content-Length` with `Expect: 100-continue`: the body goes only after `100 Continue`.
        case expectContinue
        /// `Transfer-Encoding: chunked`: the server cannot know the size in advance.
        case chunked
    }

    let port: Int
    /// The loopback address requests come from (nil: the system's choice, 127.0.0.1), so that a
    /// test can play several clients.
    var source: String?

    init(port: Int, source: String? = nil) {
        self.port = port
        self.source = source
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> Reply {
        try send("GET", path, headers: headers, body: nil)
    }

    func post(_ path: String, body: Data, headers: [String: String] = [:], framing: BodyFraming = .contentLength) throws -> Reply {
        try send("POST", path, headers: headers, body: body, framing: framing)
    }

    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: Data?,
              framing: BodyFraming = .contentLength, announcedLength: Int? = nil) throws -> Reply {
        let socket = try connect()
        defer { close(socket) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body {
            switch framing {
            case .contentLength: head += "Content-Length: \(announcedLength ?? body.count)\r\n"
            case .expectContinue: head += "Content-Length: \(announcedLength ?? body.count)\r\nExpect: 100-continue\r\n"
            case .chunked: head += "Transfer-Encoding: chunked\r\n"
            }
        }
        head += "\r\n"
        var reader = ResponseReader(socket: socket)
        try write(socket, Data(head.utf8))
        guard let body else { return try reader.read() }
        switch framing {
        case .contentLength:
            try write(socket, body)
        case .expectContinue:
            let interim = try reader.read()
            guard interim.status == 100 else { return interim }
            try write(socket, body)
        case .chunked:
            var offset = 0
            while offset < body.count {
                let end = min(offset + 16 * 1024, body.count)
                try write(socket, Data(String(end - offset, radix: 16).utf8) + Data("\r\n".utf8) + body[offset..<end] + Data("\r\n".utf8))
                offset = end
            }
            try write(socket, Data("0\r\n\r\n".utf8))
        }
        return try reader.read()
    }

    /// Sends `GET path` `times` times over one kept-alive connection, one after another.
    func getOnOneConnection(_ path: String, times: Int) throws -> [Reply] {
        let socket = try connect()
        defer { close(socket) }
        var reader = ResponseReader(socket: socket)
        var replies: [Reply] = []
        for _ in 0..<times {
            try write(socket, Data("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
            replies.append(try reader.read())
        }
        return replies
    }

    /// Sends `bytes` as they are (from `source`, another loopback address when given) and reads
    /// every reply until the server closes the connection or `seconds` pass without a byte.
    /// `closed` says whether the server closed it.
    func exchange(_ bytes: Data, source: String? = nil, seconds: Int = 10) throws -> (replies: [Reply], closed: Bool) {
        let socket = try connect(source: source, seconds: seconds)
        defer { close(socket) }
        try write(socket, bytes)
        var reader = ResponseReader(socket: socket)
        var replies: [Reply] = []
        while true {
            do {
                replies.append(try reader.read())
            } catch {
                return (replies, errno != EAGAIN && errno != EWOULDBLOCK)
            }
        }
    }

    /// A connected socket, for tests that hold connections open; the caller closes it.
    func openSocket(source: String? = nil, seconds: Int = 30) throws -> Int32 { try connect(source: source, seconds: seconds) }

    /// A kept-alive connection the server has surely accepted: `GET /healthz` was answered on it.
    /// A socket that is only connected may still wait in the listen queue, and the server's
    /// threads accept from it in no fixed order. The caller closes it.
    func openAnsweredSocket(source: String? = nil) throws -> Int32 {
        let socket = try connect(source: source)
        do {
            try write(socket, Data("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
            var reader = ResponseReader(socket: socket)
            let reply = try reader.read()
            guard reply.status == 200 else { throw ClientError("GET /healthz on a held connection answered \(reply.status)") }
            return socket
        } catch {
            close(socket)
            throw error
        }
    }

    private func connect(source: String? = nil, seconds: Int = 30) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError("socket: \(String(cString: strerror(errno)))") }
        if let source = source ?? self.source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            close(fd)
            throw ClientError("connect to port \(port): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    private func write(_ socket: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let n = Glibc.send(socket, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ClientError("send: \(String(cString: strerror(errno)))")
                }
                sent += n
            }
        }
    }
}

struct ClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads responses off a socket: status line, headers, then a body framed by Content-Length or
/// chunked encoding (or the end of the connection).
private struct ResponseReader {
    let socket: Int32
    var buffer = Data()

    init(socket: Int32) { self.socket = socket }

    mutating func read() throws -> HTTPClient.Reply {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            guard try fill() else { throw ClientError("the connection closed before a response head arrived") }
        }
        let range = buffer.range(of: separator)!
        let head = String(decoding: buffer[buffer.startIndex..<range.lowerBound], as: UTF8.self)
        buffer = Data(buffer[range.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError("bad status line: \(head)") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if status == 100 || status == 204 {
            return HTTPClient.Reply(status: status, headers: headers, body: Data())
        }
        if let length = headers["content-length"].flatMap(Int.init) {
            while buffer.count < length {
                guard try fill() else { throw ClientError("the connection closed mid-body") }
            }
            let body = Data(buffer.prefix(length))
            buffer = Data(buffer.dropFirst(length))
            return HTTPClient.Reply(status: status, headers: headers, body: body)
        }
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var body = Data()
            while true {
                let crlf = Data("\r\n".utf8)
                while buffer.range(of: crlf) == nil { guard try fill() else { throw ClientError("chunk size missing") } }
                let lineRange = buffer.range(of: crlf)!
                let size = Int(String(decoding: buffer[buffer.startIndex..<lineRange.lowerBound], as: UTF8.self)
                    .split(separator: ";")[0], radix: 16) ?? 0
                buffer = Data(buffer[lineRange.upperBound...])
                while buffer.count < size + 2 { guard try fill() else { throw ClientError("chunk cut short") } }
                body.append(buffer.prefix(size))
                buffer = Data(buffer.dropFirst(size + 2))
                if size == 0 { return HTTPClient.Reply(status: status, headers: headers, body: body) }
            }
        }
        while try fill() {}
        return HTTPClient.Reply(status: status, headers: headers, body: buffer)
    }

    /// Reads more bytes; false at the end of the connection.
    private mutating func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = recv(socket, &chunk, chunk.count, 0)
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            if errno == ECONNRESET { return false }
            throw ClientError("recv: \(String(cString: strerror(errno)))")
        }
    }
}
