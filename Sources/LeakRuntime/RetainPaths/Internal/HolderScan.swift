import CLeakCheckSupport

/// The backward search: from the object to what holds it, level by level, by scanning the
/// process's writable memory for words that are the addresses looked for (in big copied pieces,
/// in C: `lc_scan_writable_memory`), then finding the malloc block around each word and keeping it
/// when it is a Swift holder (an object, an array's or dictionary's storage, a closure context, a
/// box). A word in an image's writable segment is a global's or a static's storage: a root.
///
/// What it finds is only where to look: the forward, typed walk then reads the roots found,
/// through the holders found, and only that walk proves a path. So a stale word (a freed block, a
/// copy on a dead stack) costs a little time and never makes a false path.
struct HolderScan {
    struct Result {
        /// Addresses inside images' writable segments that hold one of `holders`.
        var rootSlots: [UInt] = []
        /// The holders found that are among the ones the runtime holds (`runtimeHeld`).
        var runtimeHeld: [UInt] = []
        /// The blocks found holding the object, directly or through others, the object included.
        var holders: Set<UInt> = []
        /// The bound reached: `depth 8`, `200 holders`, the time budget.
        var boundReached: String?
    }

    /// How far from a word its block's start is looked for, header by header (a word deep in a
    /// big array's storage), unless the scan found it in an mmapped block.
    private static let maxBlockDistance = 1 << 16
    /// Hits read back per level.
    private static let maxHits = 4096

    /// False where memory cannot be scanned (not Linux with glibc): the search walks forward only.
    static var isSupported: Bool { ProcessMemory.isSupported && MemoryLayout<UInt>.size == 8 }

    /// Searches backwards from `target` until the level where roots are found (a global's slot,
    /// or a holder in `runtimeHeld`: what libdispatch's armed timers capture), no holder is left,
    /// or a bound is reached. (Roots that lead nowhere typed send the search forward from every
    /// global, so stopping at the first level with roots loses no path.)
    static func run(
        from target: UInt, runtimeHeld: Set<UInt> = [], maxDepth: Int, maxHolders: Int, deadline: ContinuousClock.Instant
    ) -> Result {
        var result = Result()
        result.holders.insert(target)
        if runtimeHeld.contains(target) {
            result.runtimeHeld.append(target)
            return result
        }
        let segments = ProcessMemory.writableSegments().map { ($0.start, $0.start + UInt($0.size)) }
        var frontier = [target]
        for depth in 1...max(1, maxDepth) {
            var slots = [UInt](repeating: 0, count: maxHits)
            var values = [UInt](repeating: 0, count: maxHits)
            var blocks = [UInt](repeating: 0, count: maxHits)
            var scanned: UInt64 = 0
            let budget = Self.nanoseconds(until: deadline)
            let found = frontier.withUnsafeBufferPointer { targets in
                slots.withUnsafeMutableBufferPointer { slots in
                    values.withUnsafeMutableBufferPointer { values in
                        blocks.withUnsafeMutableBufferPointer { blocks in
                            lc_scan_writable_memory(targets.baseAddress, targets.count, slots.baseAddress, values.baseAddress,
                                                    blocks.baseAddress, maxHits, budget, &scanned)
                        }
                    }
                }
            }
            if found == -1 { return Result() }
            let timedOut = found <= -2
            let hits = timedOut ? -(found + 2) : found
            var next: [UInt] = []
            for index in 0..<min(hits, maxHits) {
                let slot = slots[index]
                if segments.contains(where: { slot >= $0.0 && slot < $0.1 }) {
                    result.rootSlots.append(slot)
                    continue
                }
                let start = blocks[index] != 0 ? blocks[index] : lc_block_start(slot, Self.maxBlockDistance)
                guard start != 0, start != values[index], isSwiftHolder(at: start) else { continue }
                guard result.holders.count < maxHolders else {
                    result.boundReached = "\(maxHolders) holders"
                    return result
                }
                if result.holders.insert(start).inserted {
                    next.append(start)
                    if runtimeHeld.contains(start) { result.runtimeHeld.append(start) }
                }
            }
            if timedOut || hits > maxHits {
                result.boundReached = timedOut ? "the time budget" : "\(maxHits) words found at one level"
                return result
            }
            if next.isEmpty || !result.rootSlots.isEmpty || !result.runtimeHeld.isEmpty { return result }
            if depth == maxDepth {
                result.boundReached = "depth \(maxDepth)"
            }
            frontier = next
        }
        return result
    }

    /// A Swift object (class instance, a collection's storage), a closure context or a box, by its
    /// metadata, read by copying.
    private static func isSwiftHolder(at address: UInt) -> Bool {
        if LiveObject.isObject(at: address) || LiveObject.isClosureContext(at: address) { return true }
        // A generic box (swift_allocBox): HeapGenericLocalVariable metadata, kind 0x500.
        guard let metadata = ProcessMemory.word(at: address), metadata >= 0x10000, metadata % 8 == 0 else { return false }
        return ProcessMemory.word(at: metadata) == 0x500 && lc_in_image(UInt(metadata)) == 1
    }

    /// What is left until `deadline`, in nanoseconds, at least 1 (0 would mean no limit).
    private static func nanoseconds(until deadline: ContinuousClock.Instant) -> UInt64 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return 1 }
        let (seconds, attoseconds) = remaining.components
        return max(1, UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))
    }
}
