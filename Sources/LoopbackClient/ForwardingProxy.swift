import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small reverse proxy on loopback, for tests and the bench to put in front of the server as a
/// load balancer would be: it accepts connections on a port of its own and, for each request,
/// appends the address it got the connection from to `X-Forwarded-For` (as nginx's
/// `$proxy_add_x_forwarded_for` does) and passes the request on over a connection of its own,
/// opened from `source` once the first request's headers are in. Bodies are passed on as they
/// come (a slow body stays slow), answers are passed back as they come.
///
/// Like nginx, it holds a request's headers until they are complete, so a client that trickles
/// headers never reaches the server. A request with `Transfer-Encoding: chunked` is passed on
/// with everything after it on its connection, unparsed. One thread per connection and
/// direction, small stacks: a harness, not a production proxy.
///
/// ```swift
/// let proxy = try ForwardingProxy(upstreamPort: server.port, source: "127.77.0.1")
/// // clients connect to proxy.port; the server sees 127.77.0.1 and X-Forwarded-For
/// ```
public final class ForwardingProxy: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    public let upstreamPort: Int
    /// The loopback address the proxy's connections to the server come from.
    public let source: String
    private let listener: Int32
    private let stopped = NSLock()
    private var isStopped = false

    /// Listens on a free port of 127.0.0.1 and starts accepting.
    public init(upstreamPort: Int, source: String = "127.0.0.1") throws {
        self.upstreamPort = upstreamPort
        self.source = source
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 4_096) == 0 else {
            close(fd)
            throw Failure(description: "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Self.spawn { [self] in acceptLoop() }
    }

    deinit { stop() }

    /// Stops accepting; connections already open go on until either side closes.
    public func stop() {
        stopped.lock()
        defer { stopped.unlock() }
        guard !isStopped else { return }
        isStopped = true
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func spawn(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 128 * 1024
        thread.start()
    }

    private func acceptLoop() {
        while true {
            var peer = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let client = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
            }
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE { continue }
                return
            }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &peer.sin_addr, &text, socklen_t(text.count))
            let address = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            Self.spawn { [self] in serve(client: client, address: address) }
        }
    }

    /// Client to server: each request's head with the client appended to `X-Forwarded-For`, then
    /// its body as it comes. The answers go back on a thread of their own.
    private func serve(client: Int32, address: String) {
        var upstream: Int32 = -1
        let answersDone = DispatchSemaphore(value: 0)
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        func fill() -> Bool {
            var n: Int
            repeat { n = recv(client, &chunk, chunk.count, 0) } while n < 0 && errno == EINTR
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
            return true
        }
        // This thread owns both sockets and closes them last, once the answers' thread is done:
        // the server sees the client's end as a half-close, and answers still flow back.
        defer {
            if upstream >= 0 {
                shutdown(upstream, Int32(SHUT_WR))
                answersDone.wait()
                close(upstream)
            }
            close(client)
        }
        while true {
            // The head, whole.
            var end: Int?
            while true {
                end = Self.headEnd(buffer)
                if end != nil || buffer.count > 64 * 1024 { break }
                guard fill() else { return }
            }
            guard let headEnd = end else { return }
            let (head, bodyLength, chunked) = Self.forwarded(Array(buffer[0..<headEnd]), client: address)
            buffer.removeFirst(headEnd)
            if upstream < 0 {
                guard let fd = try? LoopbackSocket.connect(port: upstreamPort, source: source) else { return }
                upstream = fd
                let (from, to) = (fd, client)
                Self.spawn {
                    Self.pump(from: from, to: to)
                    answersDone.signal()
                }
            }
            guard Self.sendAll(upstream, head) else { return }
            if chunked {
                guard Self.sendAll(upstream, buffer) else { return }
                buffer.removeAll()
                while fill() {
                    guard Self.sendAll(upstream, buffer) else { return }
                    buffer.removeAll()
                }
                return
            }
            var left = bodyLength
            while left > 0 {
                if buffer.isEmpty { guard fill() else { return } }
                let part = min(left, buffer.count)
                guard Self.sendAll(upstream, Array(buffer[0..<part])) else { return }
                buffer.removeFirst(part)
                left -= part
            }
        }
    }

    /// Bytes from one socket to the other until either end closes; then both are shut down, which
    /// ends the other direction's wait on them too (a client still sending a body the server
    /// will not read is cut off, as nginx does). Neither is closed here.
    private static func pump(from: Int32, to: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = recv(from, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || !sendAll(to, Array(chunk[0..<n])) { break }
        }
        shutdown(to, Int32(SHUT_RDWR))
        shutdown(from, Int32(SHUT_RDWR))
    }

    /// Where the head ends (just past its blank line), if it has.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    /// The head with `client` appended to its `X-Forwarded-For` (or one added), its body's
    /// `Content-Length`, and whether it is chunked.
    static func forwarded(_ head: [UInt8], client: String) -> (head: [UInt8], bodyLength: Int, chunked: Bool) {
        var lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        while lines.last == "" { lines.removeLast() }
        var length = 0
        var chunked = false
        var appended = false
        for index in lines.indices.dropFirst() {
            guard let colon = lines[index].firstIndex(of: ":") else { continue }
            let name = lines[index][..<colon].lowercased()
            let value = lines[index][lines[index].index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-length": length = Int(value) ?? 0
            case "transfer-encoding": chunked = true
            case "x-forwarded-for" where !appended:
                lines[index] = "X-Forwarded-For: \(value), \(client)"
                appended = true
            default: break
            }
        }
        if !appended { lines.append("X-Forwarded-For: \(client)") }
        return (Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8), length, chunked)
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool { LoopbackSocket.sendAll(fd, bytes) }
}
