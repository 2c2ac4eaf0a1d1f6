import Foundation
import LoopbackClient
#if canImport(Glibc)
import Glibc
#endif

/// One request a connection over a plain TCP socket, as a CI client would send it; reads the
/// answer to the end of the connection.
struct BenchHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int

    /// Sends the request and throws unless the answer is a 200.
    func expect200(_ method: String, _ path: String, body: Data? = nil) throws {
        let start = ContinuousClock.now
        _ = try body200(method, path, body: body)
        if let slowMs = Self.slowMs, ContinuousClock.now - start > .milliseconds(slowMs) {
            FileHandle.standardError.write(Data("slow: \(formatNanoseconds((ContinuousClock.now - start).nanoseconds)) \(method) \(path)\n".utf8))
        }
    }

    /// `LEAKHISTORY_BENCH_SLOW_MS`: requests slower than this are printed to stderr, to find a tail.
    private static let slowMs = ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_SLOW_MS"].flatMap(Int.init)

    /// Sends the request and returns the body of its 200 answer (throws on any other).
    func body200(_ method: String, _ path: String, body: Data? = nil) throws -> Data {
        let fd = try LoopbackSocket.connect(port: port)
        defer { close(fd) }
        var request = Data("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".utf8)
        if let body {
            request.append(Data("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8))
            request.append(body)
        } else {
            request.append(Data("\r\n".utf8))
        }
        try request.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let n = send(fd, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
                sent += n
            }
        }
        var answer = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 { answer.append(contentsOf: chunk[0..<n]) } else { break }
        }
        let head = String(decoding: answer.prefix(12), as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 200") else {
            throw Failure(description: "\(method) \(path) answered: \(String(decoding: answer.prefix(400), as: UTF8.self))")
        }
        let separator = Data("\r\n\r\n".utf8)
        return answer.range(of: separator).map { answer[$0.upperBound...] } ?? Data()
    }
}
