import CZlib
import Foundation

/// Gzip for test bodies, with zlib.
enum Gzip {
    static func compress(_ data: Data) -> Data {
        var stream = z_stream()
        precondition(lh_deflate_init_gzip(&stream, 9) == Z_OK)
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            var rc: Int32 = Z_OK
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    rc = deflate(&stream, Z_FINISH)
                    return out.count - Int(stream.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
            } while rc != Z_STREAM_END
        }
        return output
    }
}
