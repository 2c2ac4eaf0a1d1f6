import CLeakCheckSupport
import Foundation

/// What the Swift runtime's type metadata says about a type, read the way the runtime lays it
/// out (docs/ABI/TypeMetadata.rst in the Swift repository).
///
/// `Mirror` loads a `weak` or `unowned` field as if it were strong, so it cannot tell a cycle
/// from a back reference. The runtime's field descriptors can: a field's mangled type name ends
/// in `Xw` for `weak`, `Xo` for `unowned` and `Xu` for `unowned(unsafe)` storage
/// (docs/ABI/Mangling.rst). Everything here is checked before it is trusted: the metadata kind,
/// the descriptor's kind and name, and the number of fields; anything unexpected is `nil`, which
/// callers turn into an `unknown` step instead of a claimed cycle.
enum TypeMetadata {
    /// How a stored field holds its value.
    enum Ownership: Equatable {
        case strong, weak, unowned, unownedUnsafe
    }

    /// The metadata kinds the walk needs (MetadataKind.def).
    enum Kind: Equatable {
        case `class`, `struct`, `enum`, optional, tuple, function, existential, other
    }

    static func kind(of type: Any.Type) -> Kind {
        let raw = metadataPointer(type).load(as: UInt.self)
        switch raw {
        // Swift classes without Objective-C interop store 0; with it, an isa pointer (> 0x7FF).
        // 0x305 wraps an Objective-C class.
        case 0, 0x305: return .class
        case 0x200: return .struct
        case 0x201: return .enum
        case 0x202: return .optional
        case 0x301: return .tuple
        case 0x302: return .function
        case 0x303: return .existential
        default: return raw > 0x7FF ? .class : .other
        }
    }

    /// False for `~Copyable` types (a `Mutex` field): they cannot be copied out to be looked at.
    static func isCopyable(_ type: Any.Type) -> Bool {
        valueWitnessFlags(type) & 0x0080_0000 == 0
    }

    /// True if values of `type` hold no references at all (the value witness table says POD),
    /// so a walk can skip them.
    static func isPlainData(_ type: Any.Type) -> Bool {
        valueWitnessFlags(type) & 0x10000 == 0
    }

    /// Whether values of `type` sit in an existential's three-word buffer themselves, not in a
    /// box it points to (the value witness flag IsNonInline, 0x20000, clear).
    static func isStoredInline(_ type: Any.Type) -> Bool {
        valueWitnessFlags(type) & 0x20000 == 0
    }

    /// An existential of the opaque representation (`Any`, `any P` without a class constraint,
    /// not `Error`): its container is a three-word buffer, the metadata, then witness tables.
    /// ExistentialTypeFlags (Metadata.h): the class constraint bit 0x80000000 set means `Any`
    /// (no class constraint); the special protocol bits 0x3F000000 are 0 but for `Error`.
    static func isOpaqueExistential(_ type: Any.Type) -> Bool {
        guard kind(of: type) == .existential else { return false }
        let flags = metadataPointer(type).load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt32.self)
        return flags & 0x8000_0000 != 0 && flags & 0x3F00_0000 == 0
    }

    /// The value witness table sits one word before the metadata's address point: eight function
    /// pointers, then size, stride, and the flags word (IsNonPOD 0x10000, IsNonCopyable 0x800000).
    private static func valueWitnessFlags(_ type: Any.Type) -> UInt32 {
        valueWitnesses(type).load(fromByteOffset: 8 * MemoryLayout<UnsafeRawPointer>.size + 16, as: UInt32.self)
    }

    /// The size of a value and its alignment, from the value witness table.
    static func layout(of type: Any.Type) -> (size: Int, alignment: Int) {
        let witnesses = valueWitnesses(type)
        let size = witnesses.load(fromByteOffset: 8 * MemoryLayout<UnsafeRawPointer>.size, as: Int.self)
        let flags = valueWitnessFlags(type)
        return (size, Int(flags & 0xFF) + 1)
    }

    private static func valueWitnesses(_ type: Any.Type) -> UnsafeRawPointer {
        (metadataPointer(type) - MemoryLayout<UnsafeRawPointer>.size).load(as: UnsafeRawPointer.self)
    }

    /// The calling convention of a function type is Swift's own (thick: a function pointer and a
    /// context), from the function metadata's flags word (ConventionMask 0xFF0000, Swift = 0).
    static func isThickFunction(_ type: Any.Type) -> Bool {
        guard kind(of: type) == .function else { return false }
        let flags = metadataPointer(type).load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UInt.self)
        return (flags >> 16) & 0xFF == 0
    }

    /// The ownership of each stored field of a class (its own fields, not its superclass's) or
    /// struct, in declaration order, as `Mirror` lists them; nil where the metadata cannot be read.
    struct StoredField {
        let name: String
        let ownership: Ownership
        let typeName: MangledName
    }

    static func storedFields(of type: Any.Type) -> [StoredField]? {
        guard let descriptor = nominalDescriptor(of: type), let fields = relative(descriptor + 16) else {
            return nil
        }
        let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
        guard recordSize >= 12, count < 100_000 else { return nil }
        var result: [StoredField] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            let record = fields + 16 + index * recordSize
            guard let namePointer = relative(record + 8) else { return nil }
            let name = String(cString: namePointer.assumingMemoryBound(to: CChar.self))
            guard let mangled = relative(record + 4) else { return nil }
            let typeName = MangledName(mangled)
            result.append(StoredField(name: name, ownership: typeName.ownership, typeName: typeName))
        }
        return result
    }

    static func metadataPointer(_ type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    /// The nominal type descriptor of a class or struct, checked against the type's own name.
    static func nominalDescriptor(of type: Any.Type) -> UnsafeRawPointer? {
        let metadata = metadataPointer(type)
        let expectedKind: UInt32
        let descriptorOffset: Int
        switch kind(of: type) {
        case .class:
            guard isSwiftClass(metadata) else { return nil }
            expectedKind = 16
            descriptorOffset = classDescriptorOffset
        case .struct:
            expectedKind = 17
            descriptorOffset = 8
        default:
            return nil
        }
        guard let descriptor = metadata.load(fromByteOffset: descriptorOffset, as: UnsafeRawPointer?.self),
              descriptor.load(as: UInt32.self) & 0x1F == expectedKind,
              let namePointer = relative(descriptor + 8)
        else { return nil }
        let name = String(cString: namePointer.assumingMemoryBound(to: CChar.self))
        guard shortName(of: type) == name else { return nil }
        return descriptor
    }

    /// `Value` of Synchronization's `_Cell<Value>` (the storage of `Mutex` and `Atomic`), which is
    /// declared `@_rawLayout(like: Value)`: its bytes are a `Value` at offset 0 (Cell.swift in
    /// stdlib/public/Synchronization). Checked by the descriptor's name and module and by the
    /// sizes agreeing; nil for any other type.
    static func cellValueType(of type: Any.Type) -> Any.Type? {
        guard _typeName(type, qualified: true).hasPrefix("Synchronization._Cell<"),
              let descriptor = nominalDescriptor(of: type), descriptor.load(as: UInt32.self) & 0x80 != 0,  // IsGeneric
              let parent = relativeIndirectable(descriptor + 4), parent.load(as: UInt32.self) & 0x1F == 0,  // Module
              let moduleName = relative(parent + 8),
              String(cString: moduleName.assumingMemoryBound(to: CChar.self)) == "Synchronization"
        else { return nil }
        // A struct's generic arguments follow its kind and descriptor words.
        let argument = metadataPointer(type).load(fromByteOffset: 2 * MemoryLayout<UInt>.size, as: UnsafeRawPointer?.self)
        guard let argument else { return nil }
        let value = unsafeBitCast(argument, to: Any.Type.self)
        guard layout(of: value).size == layout(of: type).size else { return nil }
        return value
    }

    /// The declared type of a `~Copyable` field, mangled, whose field record names it by a
    /// reference (0x09) to an accessor that gives `()`: the local symbol on that name,
    /// `get_type_metadata <mangling> noncopyable.N`, read from the image's symbol table, spells
    /// the real type (`15Synchronization5MutexVySDy…GG`). The runtime does not build such a type
    /// from its text, so callers read the mangling. Nil when the name is not such a reference or
    /// has no symbol.
    static func noncopyableFieldMangling(_ name: MangledName) -> String? {
        let bytes = name.start.assumingMemoryBound(to: UInt8.self)
        guard name.length == 5, bytes[0] == 0x09 else { return nil }
        let address = UInt(bitPattern: name.start)
        var base: UInt = 0
        guard let path = lc_image_path(address, &base), address > base else { return nil }
        let file = String(cString: path)
        let symbols = GlobalRoots.symbols(of: file.isEmpty ? "/proc/self/exe" : file)
        return symbols.noncopyableFieldTypes[address - base]
    }

    /// Only Swift class metadata has a descriptor: not the wrapper of an Objective-C class
    /// (kind 0x305), nor, where Objective-C exists, a class whose data word lacks the Swift bits.
    private static func isSwiftClass(_ metadata: UnsafeRawPointer) -> Bool {
        let raw = metadata.load(as: UInt.self)
        guard raw == 0 || raw > 0x7FF else { return false }
        guard Platform.hasObjectiveCInterop else { return true }
        let data = metadata.load(fromByteOffset: 4 * MemoryLayout<UnsafeRawPointer>.size, as: UInt.self)
        return data & 0x3 != 0
    }

    /// Where a class's metadata keeps its descriptor: after kind/isa and superclass, the
    /// Objective-C cache and data words where interop exists, then five 32-bit fields and two
    /// 16-bit ones.
    private static let classDescriptorOffset = (Platform.hasObjectiveCInterop ? 8 : 5) * MemoryLayout<UnsafeRawPointer>.size

    /// `Outer<Int>.Inner<String>` → `Inner`: the descriptor stores the bare name.
    private static func shortName(of type: Any.Type) -> String {
        var depth = 0
        var bare = ""
        for character in _typeName(type, qualified: false) {
            switch character {
            case "<": depth += 1
            case ">": depth -= 1
            default: if depth == 0 { bare.append(character) }
            }
        }
        if let dot = bare.lastIndex(of: ".") { bare = String(bare[bare.index(after: dot)...]) }
        return bare
    }

    /// A relative pointer whose low bit says it points at the address of its target (a GOT slot).
    private static func relativeIndirectable(_ field: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = field.load(as: Int32.self)
        guard offset != 0 else { return nil }
        let target = field + Int(offset & ~1)
        return offset & 1 == 0 ? target : target.load(as: UnsafeRawPointer?.self)
    }

    private static func relative(_ field: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = field.load(as: Int32.self)
        return offset == 0 ? nil : field + Int(offset)
    }
}
