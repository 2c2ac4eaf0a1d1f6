import CZlib
import Foundation

/// Inflates a `Content-Encoding: gzip` body with zlib, refusing to grow it past a limit so that a
/// small "gzip bomb" cannot exhaust memory.
enum GzipDecoder {
    enum Failure: Error, Equatable {
        case tooLarge(limit: Int)
        case corrupt(String)
    }

    static func inflate(_ compressed: Data, limit: Int) throws(Failure) -> Data {
        var stream = z_stream()
        guard lh_inflate_init_gzip(&stream) == Z_OK else { throw .corrupt("zlib could not start") }
        defer { inflateEnd(&stream) }
        var output = Data()
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
                if result != Z_OK && result != Z_STREAM_END && !(result == Z_BUF_ERROR && produced > 0) {
                    let detail = stream.msg.map { String(cString: $0) } ?? "error \(result)"
                    throw .corrupt(detail)
                }
                if output.count + produced > limit { throw .tooLarge(limit: limit) }
                output.append(contentsOf: chunk[0..<produced])
                if result != Z_STREAM_END && produced == 0 && stream.avail_in == 0 {
                    throw .corrupt("the gzip stream ends early")
                }
            } while result != Z_STREAM_END
        }
        return output
    }
}
