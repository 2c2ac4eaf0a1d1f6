import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to a port on 127.0.0.1, the one way every harness client opens one: the
/// keep-alive client, the bench's one-request client and the bad-input runs.
public enum LoopbackSocket {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A connected socket; the caller closes it. `source` binds another loopback address
    /// (127.x.y.z), so that a harness can play many clients.
    public static func connect(port: Int, source: String? = nil) throws(Failure) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw Failure(description: "bind \(source): \(reason)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): \(reason)")
        }
        return fd
    }

    /// Sends every byte, retrying after signals; false when the connection failed first.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}
