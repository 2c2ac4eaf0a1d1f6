import CLeakCheckSupport

/// This process's memory, read without trusting it: a copy that fails on an unmapped address
/// instead of faulting, the size of a malloc block, and the images' writable segments. Linux with
/// glibc only; elsewhere `isSupported` is false and every read fails, so the search walks stored
/// values only.
enum ProcessMemory {
    static let isSupported = Platform.readsProcessMemory

    /// The word at `address`, or nil if it cannot be read.
    static func word(at address: UInt) -> UInt? {
        var value: UInt = 0
        let copied = withUnsafeMutableBytes(of: &value) { buffer in
            lc_copy_memory(UInt(address), buffer.baseAddress, buffer.count)
        }
        return copied == 1 ? value : nil
    }

    /// Copies `count` bytes at `address` into `buffer`; false if any of them cannot be read.
    static func copy(from address: UInt, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        lc_copy_memory(UInt(address), buffer.baseAddress, buffer.count) == 1
    }

    /// The usable size of the malloc block that starts at `address`, or 0 when the allocator's
    /// header there does not look like one.
    static func blockSize(at address: UInt) -> Int {
        Int(lc_block_size(UInt(address)))
    }

    struct Segment {
        /// The image file; empty for the main executable.
        let path: String
        let loadBias: UInt
        let start: UInt
        let size: Int
    }

    /// The writable loaded segments of every image: where globals and statics live.
    static func writableSegments() -> [Segment] {
        final class Collector {
            var segments: [Segment] = []
        }
        let collector = Collector()
        let opaque = Unmanaged.passUnretained(collector).toOpaque()
        _ = lc_writable_segments(opaque) { context, path, base, start, size in
            guard let context else { return }
            let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
            collector.segments.append(Segment(
                path: path.map { String(cString: $0) } ?? "", loadBias: UInt(base), start: UInt(start), size: Int(size)))
        }
        return withExtendedLifetime(collector) { collector.segments }
    }
}
