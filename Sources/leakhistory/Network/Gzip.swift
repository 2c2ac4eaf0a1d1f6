import CZlib
import Foundation

/// gzip compression for upload bodies, through zlib.
enum Gzip {
    /// `data` as a gzip stream (RFC 1952), or nil if zlib failed (then send it uncompressed).
    static func compress(_ data: Data) -> Data? {
        var stream = z_stream()
        guard lh_deflate_init_gzip(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, UInt(data.count))) + 32)
        let produced: Int = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                let status = deflate(&stream, Z_FINISH)
                return status == Z_STREAM_END ? Int(stream.total_out) : -1
            }
        }
        guard produced >= 0 else { return nil }
        output.count = produced
        return output
    }
}
