/// Key states packed into one blob: the layout of `state_blobs` (a run's states at its commit,
/// in key order) and `key_state_blocks` (a key's states at a batch of commits, in commit order).
///
/// A row a key state in key order costs a b-tree descent and, in each transaction, a page of its
/// own for every key, most of an upload's server time (BENCHMARKS.md, "The store's tuning").
/// Packed, a run's states are one row, and a key's states for a batch of commits one row more.
///
/// Each entry is its ordinal (the key id, or the commit id) as the difference from the entry
/// before it, then the checked, leaked, late-release and error counts, the passing site and the
/// slowest passing wait (each plus one, zero for none), all unsigned LEB128 varints. Ordinals
/// strictly increase, so each is there once.
enum PackedKeyStates {
    /// The blob of `entries`, whose ordinals must strictly increase.
    static func encode(_ entries: some Sequence<(ordinal: Int64, state: KeyTally)>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.underestimatedCount * 8)
        var previous: Int64 = 0
        var first = true
        for (ordinal, state) in entries {
            precondition(first ? ordinal >= 0 : ordinal > previous, "packed key states need strictly increasing ordinals")
            append(UInt64(ordinal - previous), to: &bytes)
            append(UInt64(state.checked), to: &bytes)
            append(UInt64(state.leaked), to: &bytes)
            append(UInt64(state.lateRelease), to: &bytes)
            append(UInt64(state.errors), to: &bytes)
            append(state.passedSiteID.map { UInt64($0) + 1 } ?? 0, to: &bytes)
            append(state.slowestPassUs.map { UInt64($0) + 1 } ?? 0, to: &bytes)
            previous = ordinal
            first = false
        }
        return bytes
    }

    /// Calls `body` with each entry of `bytes`, in order.
    /// - Throws: `LeakStoreError.unavailable` naming what is wrong when the blob is cut short or
    ///   holds a number no encoder wrote.
    static func decode(_ bytes: UnsafeRawBufferPointer, _ body: (Int64, KeyTally) throws -> Void) throws {
        var reader = Reader(bytes: bytes)
        var ordinal: Int64 = 0
        while !reader.atEnd {
            ordinal += try reader.next()
            let checked = try reader.next(), leaked = try reader.next(), late = try reader.next(), errors = try reader.next()
            let site = try reader.next(), slowest = try reader.next()
            try body(ordinal, KeyTally(checked: checked, leaked: leaked, lateRelease: late, errors: errors,
                                           passedSiteID: site == 0 ? nil : site - 1, slowestPassUs: slowest == 0 ? nil : slowest - 1))
        }
    }

    /// Calls `body` with each entry of `bytes`, in order.
    static func decode(_ bytes: [UInt8], _ body: (Int64, KeyTally) throws -> Void) throws {
        try bytes.withUnsafeBytes { try decode($0, body) }
    }

    /// Every entry of `bytes`, in order.
    static func decode(_ bytes: [UInt8]) throws -> [(ordinal: Int64, state: KeyTally)] {
        var entries: [(ordinal: Int64, state: KeyTally)] = []
        try decode(bytes) { entries.append(($0, $1)) }
        return entries
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        /// The next varint, which must fit in a non-negative Int64.
        mutating func next() throws -> Int64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard offset < bytes.count else {
                    throw LeakStoreError.unavailable("a packed key-state blob ends inside an entry (byte \(offset) of \(bytes.count))")
                }
                let byte = bytes[offset]
                offset += 1
                guard shift < 63 || (shift == 63 && byte <= 1) else {
                    throw LeakStoreError.unavailable("a packed key-state blob holds a number over 64 bits at byte \(offset - 1)")
                }
                value |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            guard let signed = Int64(exactly: value) else {
                throw LeakStoreError.unavailable("a packed key-state blob holds a number past Int64 at byte \(offset - 1)")
            }
            return signed
        }
    }
}
