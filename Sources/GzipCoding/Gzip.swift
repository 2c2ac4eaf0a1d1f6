import CZlib
import Foundation

/// gzip (RFC 1952) through zlib, in one place: the CLI compresses uploads with it, the server
/// inflates `Content-Encoding: gzip` bodies with it, tests and the fuzzer build bodies with it.
public enum Gzip {
    public enum Failure: Error, Equatable, Sendable {
        /// Inflating would grow the body past `limit` bytes (a "gzip bomb").
        case tooLarge(limit: Int)
        /// Not a gzip stream, or a damaged or truncated one.
        case corrupt(String)
    }

    /// `data` as one gzip member.
    /// - Throws: `Failure.corrupt` only if zlib cannot start (out of memory).
    public static func compress(_ data: Data, level: Int32 = Z_DEFAULT_COMPRESSION) throws(Failure) -> Data {
        var stream = z_stream()
        guard lh_deflate_init_gzip(&stream, level) == Z_OK else { throw .corrupt("zlib could not start a gzip writer") }
        defer { deflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = [UInt8](data)
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            var result: Int32 = Z_OK
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    result = deflate(&stream, Z_FINISH)
                    return out.count - Int(stream.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
            } while result == Z_OK
        }
        return output
    }

    /// Inflates a gzip body, refusing to grow it past `limit` bytes so that a small body cannot
    /// exhaust memory.
    public static func inflate(_ compressed: Data, limit: Int) throws(Failure) -> Data {
        var stream = z_stream()
        guard lh_inflate_init_gzip(&stream) == Z_OK else { throw .corrupt("zlib could not start") }
        defer { inflateEnd(&stream) }
        var output = Data()
        // The trailer's last four bytes give the inflated size (modulo 2^32): room for it at once,
        // as far as the limit and deflate's greatest ratio (~1,032:1) allow, where growing by
        // appends held a third more than the body in the end (30 MiB for a 23 MiB one).
        if compressed.count >= 18 {
            let size = compressed.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
            output.reserveCapacity(min(size, limit, compressed.count * 1_032))
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let input = [UInt8](compressed)
        var result: Int32 = Z_OK
        try input.withUnsafeBufferPointer { (inBuffer) throws(Failure) in
            stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
            stream.avail_in = uInt(inBuffer.count)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    result = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return outBuffer.count - Int(stream.avail_out)
                }
                // All input read, nothing more produced, no end marker: the body was cut short.
                if result != Z_STREAM_END && produced == 0 && stream.avail_in == 0 {
                    throw .corrupt("the gzip stream ends early")
                }
                if result != Z_OK && result != Z_STREAM_END && !(result == Z_BUF_ERROR && produced > 0) {
                    let detail = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
                    throw .corrupt(detail)
                }
                if output.count + produced > limit { throw .tooLarge(limit: limit) }
                output.append(contentsOf: chunk[0..<produced])
            } while result != Z_STREAM_END
        }
        return output
    }
}
