#if canImport(Glibc)
import Glibc

/// A loopback port that takes connections (the kernel completes them) and never answers: a
/// server that hangs. Closed when released.
final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                precondition(bind(descriptor, socketAddress, length) == 0, "bind: \(errno)")
                precondition(listen(descriptor, 64) == 0, "listen: \(errno)")
                precondition(getsockname(descriptor, socketAddress, &length) == 0, "getsockname: \(errno)")
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
#endif
