import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An upload held open halfway: the head and part of the body are sent, the rest waits until
/// `finish()`. Lets a test signal the server while a request is in flight.
final class PartialUpload {
    private let socket: Int32
    private let rest: Data

    init(port: Int, path: String, token: String, body: Data) throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socket = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else { throw ClientError("connect: \(String(cString: strerror(errno)))") }
        let half = body.count / 2
        rest = body.dropFirst(half)
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Length: \(body.count)\r\n\r\n"
        try send(Data(head.utf8) + body.prefix(half))
    }

    deinit { close(socket) }

    /// Sends the rest of the body and returns the status line's code (nil if the connection died).
    func finish() throws -> Int? {
        try send(rest)
        var received = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(socket, &chunk, chunk.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        let statusLine = String(decoding: received.prefix(while: { $0 != UInt8(ascii: "\r") }), as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    private func send(_ data: Data) throws {
        try data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let n = Glibc.send(socket, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw ClientError("send: \(String(cString: strerror(errno)))") }
                sent += n
            }
        }
    }
}
