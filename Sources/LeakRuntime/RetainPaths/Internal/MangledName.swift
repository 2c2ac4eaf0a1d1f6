import CLeakCheckSupport

/// A mangled type name as the compiler emits it in reflection records (docs/ABI/Mangling.rst):
/// text with embedded symbolic references, whose payloads (a 4-byte relative offset after 0x01–0x17,
/// a pointer after 0x18–0x1F) may hold any byte, a zero or an `X` included.
struct MangledName {
    let start: UnsafeRawPointer
    /// Bytes up to the terminating zero, symbolic references included.
    let length: Int
    /// The plain (non-reference) bytes after the last symbolic reference: enough to read
    /// suffixes and conventions.
    let plain: [UInt8]
    /// Every plain byte, symbolic references left out.
    let allPlain: [UInt8]

    init(_ start: UnsafeRawPointer) {
        self.start = start
        var cursor = start.assumingMemoryBound(to: UInt8.self)
        var plain: [UInt8] = []
        var allPlain: [UInt8] = []
        var steps = 0
        while cursor.pointee != 0, steps < 4096 {
            let byte = cursor.pointee
            switch byte {
            case 0x01...0x17:
                plain.removeAll(keepingCapacity: true)
                cursor += 1 + 4
            case 0x18...0x1F:
                plain.removeAll(keepingCapacity: true)
                cursor += 1 + MemoryLayout<UnsafeRawPointer>.size
            default:
                plain.append(byte)
                allPlain.append(byte)
                cursor += 1
            }
            steps += 1
        }
        self.length = UnsafeRawPointer(cursor) - start
        self.plain = plain
        self.allPlain = allPlain
    }

    /// No symbolic reference in it: the name is its text.
    var isPlainText: Bool { plain.count == length }

    /// Whether the name may mention a generic parameter (`x`, `q_`, `qd__`, a dependent member
    /// `Qy…`): then the runtime cannot build it without the generic context. Errs towards yes
    /// (an `x` inside an identifier counts).
    var mentionsGenericParameter: Bool {
        for (index, byte) in allPlain.enumerated() {
            if byte == UInt8(ascii: "x") || byte == UInt8(ascii: "Q") { return true }
            if byte == UInt8(ascii: "q"), index + 1 < allPlain.count {
                let next = allPlain[index + 1]
                if next == UInt8(ascii: "_") || next == UInt8(ascii: "d") || (0x30...0x39).contains(next) { return true }
            }
        }
        return false
    }

    /// A `weak`, `unowned` or `unowned(unsafe)` storage marker anywhere in the name: a box of a
    /// `weak var` (`…SgXwz_…XX`) holds nothing strongly.
    var holdsWeakly: Bool {
        for index in allPlain.indices.dropLast() where allPlain[index] == UInt8(ascii: "X") {
            let next = allPlain[index + 1]
            if next == UInt8(ascii: "w") || next == UInt8(ascii: "o") || next == UInt8(ascii: "u") { return true }
        }
        return false
    }

    /// A specialisation of a generic class, `<class>y…G` (optionally `…GSg`, an optional one),
    /// whose arguments may be generic parameters: whatever they are, its value is one strong
    /// reference. The class is the symbolic reference the name starts with (0x01 direct, 0x02
    /// indirect), checked to be a class's context descriptor (kind 16).
    func isGenericClassReference(optional: Bool) -> Bool {
        let bytes = start.assumingMemoryBound(to: UInt8.self)
        guard length > 6, bytes[0] == 0x01 || bytes[0] == 0x02, bytes[5] == UInt8(ascii: "y") else { return false }
        let ending = optional && plain.suffix(3) == [UInt8(ascii: "G"), UInt8(ascii: "S"), UInt8(ascii: "g")] ? 3 : 1
        guard bytes[length - ending] == UInt8(ascii: "G") else { return false }
        let field = start + 1
        let target = field + Int(field.loadUnaligned(as: Int32.self))
        let descriptor = bytes[0] == 0x01 ? target : target.load(as: UnsafeRawPointer?.self)
        guard let descriptor, lc_in_image(UInt(bitPattern: descriptor)) == 1 else { return false }
        return descriptor.load(as: UInt32.self) & 0x1F == 16
    }

    /// How a stored value is held: the suffix `Xw` is `weak`, `Xo` `unowned`, `Xu` `unowned(unsafe)`.
    var ownership: TypeMetadata.Ownership {
        guard plain.count >= 2, plain[plain.count - 2] == UInt8(ascii: "X") else { return .strong }
        switch plain[plain.count - 1] {
        case UInt8(ascii: "w"): return .weak
        case UInt8(ascii: "o"): return .unowned
        case UInt8(ascii: "u"): return .unownedUnsafe
        default: return .strong
        }
    }

    /// What a closure capture of this (lowered) type is, for reading a context.
    enum CaptureShape: Equatable {
        /// A thick function: function pointer, then context; `words` in all (4 with `@isolated(any)`);
        /// `optional` for an `Optional` one (`…_Sg`), nil when its function is null.
        case thickFunction(words: Int, optional: Bool)
        /// A thin function or a block: one word, no Swift context to follow.
        case opaqueWord
        /// A box for a captured `var`: one pointer to a heap box.
        case box
        /// An ordinary (formal) type, to be resolved by the runtime.
        case formal
    }

    var captureShape: CaptureShape {
        guard let last = plain.last else { return .formal }
        if plain.count >= 2, plain[plain.count - 2] == UInt8(ascii: "X"),
           last == UInt8(ascii: "x") || last == UInt8(ascii: "X") || last == UInt8(ascii: "b") {
            return .box
        }
        // A lowered function type: `… I <attributes> <conventions> _`, or an optional one, `…_Sg`.
        var plain = plain
        let optional = plain.count > 3 && plain.suffix(3) == [UInt8(ascii: "_"), UInt8(ascii: "S"), UInt8(ascii: "g")]
        if optional { plain.removeLast(2) }
        guard plain.last == UInt8(ascii: "_"), let impl = plain.lastIndex(of: UInt8(ascii: "I")) else { return .formal }
        var index = impl + 1
        if index < plain.count, plain[index] == UInt8(ascii: "e") { index += 1 }
        var words = 2
        if index < plain.count, plain[index] == UInt8(ascii: "A") {
            words = 4
            index += 1
        }
        if index < plain.count, plain[index] == UInt8(ascii: "t") { return .opaqueWord }
        if index + 1 < plain.count, plain[index + 1] == UInt8(ascii: "B") { return .opaqueWord }
        return .thickFunction(words: words, optional: optional)
    }

    /// The type the runtime builds from this name, for non-generic names; nil when it cannot
    /// (lowered SIL types, generic parameters).
    /// Within a generic type, its descriptor and its metadata's generic arguments resolve its parameters.
    func resolved(
        droppingSuffix suffix: Int = 0, context: UnsafeRawPointer? = nil, arguments: UnsafeRawPointer? = nil
    ) -> Any.Type? {
        guard length > suffix else { return nil }
        guard let metadata = lc_type_by_mangled_name(
            start.assumingMemoryBound(to: CChar.self), length - suffix, context,
            arguments?.assumingMemoryBound(to: UnsafeRawPointer?.self))
        else { return nil }
        return unsafeBitCast(metadata, to: Any.Type.self)
    }
}
