import Foundation

/// The Swift global and static variables of one image, from its ELF symbol table on disk
/// (`.symtab`, or `.dynsym` when stripped): internal globals are not in the dynamic table, so
/// `dladdr` alone would name nothing. Read once per image file and kept.
struct ELFSymbols: Sendable {
    struct Variable: Sendable {
        /// Relative to the image's load bias.
        let offset: UInt
        let size: Int
        /// As in the file: `$s4Main8registrySayAA5LeakyCGvp`.
        let mangledName: String
    }

    let variables: [Variable]
    /// The mangled names the compiler emits for `~Copyable` field types (a reference to an
    /// accessor that gives `()`, for reflection), labelled by local symbols named
    /// `get_type_metadata <mangled type> noncopyable.N`: the real type's mangling, by the name's
    /// offset from the load bias.
    let noncopyableFieldTypes: [UInt: String]
    /// The partial-apply forwarders (functions whose mangled name ends in `TA`), by their offset
    /// from the load bias: what names a closure made by partially applying a function, such as
    /// a method reference's curry thunk.
    let partialApplyForwarders: [UInt: String]
    /// The data objects asked for by name (a C library's internal globals, such as libdispatch's
    /// `_dispatch_timers_heap`), as they were found; `mangledName` is the plain name.
    let objects: [String: Variable]

    /// Swift variable storage symbols (`…vp`, `…vpZ` for statics) of the image at `path`, and the
    /// data objects named in `objectNames`; empty when the file cannot be read or is not a 64-bit
    /// little-endian ELF file.
    init(path: String, objectNames: Set<String> = []) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            variables = []
            noncopyableFieldTypes = [:]
            objects = [:]
            partialApplyForwarders = [:]
            return
        }
        let read = Self.read(data, objectNames: objectNames)
        (variables, noncopyableFieldTypes, objects, partialApplyForwarders) = (read.0, read.1, read.2, read.3)
    }

    private static let accessorPrefix = Array("get_type_metadata ".utf8)
    private static let accessorSuffix = Array(" noncopyable".utf8)

    private static func read(_ data: Data, objectNames: Set<String>) -> ([Variable], [UInt: String], [String: Variable], [UInt: String]) {
        data.withUnsafeBytes { (file: UnsafeRawBufferPointer) -> ([Variable], [UInt: String], [String: Variable], [UInt: String]) in
            func u16(_ at: Int) -> Int? { at >= 0 && at + 2 <= file.count ? Int(file.loadUnaligned(fromByteOffset: at, as: UInt16.self)) : nil }
            func u32(_ at: Int) -> Int? { at >= 0 && at + 4 <= file.count ? Int(file.loadUnaligned(fromByteOffset: at, as: UInt32.self)) : nil }
            func u64(_ at: Int) -> Int? {
                guard at >= 0, at + 8 <= file.count else { return nil }
                let value = file.loadUnaligned(fromByteOffset: at, as: UInt64.self)
                return value < UInt64(Int.max) ? Int(value) : nil
            }
            // "\x7FELF", 64-bit, little-endian.
            guard file.count > 64, file[0] == 0x7F, file[1] == 0x45, file[2] == 0x4C, file[3] == 0x46,
                  file[4] == 2, file[5] == 1,
                  let sectionTable = u64(0x28), let entrySize = u16(0x3A), let count = u16(0x3C), entrySize >= 64
            else { return ([], [:], [:], [:]) }
            struct Section { let type: Int, offset: Int, size: Int, link: Int, entrySize: Int }
            var sections: [Section] = []
            for index in 0..<count {
                let at = sectionTable + index * entrySize
                guard let type = u32(at + 4), let offset = u64(at + 24), let size = u64(at + 32),
                      let link = u32(at + 40), let entry = u64(at + 56) else { return ([], [:], [:], [:]) }
                sections.append(Section(type: type, offset: offset, size: size, link: link, entrySize: entry))
            }
            // SHT_SYMTAB (2), else SHT_DYNSYM (11).
            guard let table = sections.first(where: { $0.type == 2 }) ?? sections.first(where: { $0.type == 11 }),
                  table.entrySize >= 24, table.link < sections.count
            else { return ([], [:], [:], [:]) }
            let strings = sections[table.link]
            guard strings.offset + strings.size <= file.count, table.offset + table.size <= file.count else { return ([], [:], [:], [:]) }
            var variables: [Variable] = []
            var accessors: [UInt: String] = [:]
            var objects: [String: Variable] = [:]
            /// Where the NUL-terminated name starting at `start` ends, within the string table.
            func nameEnd(_ start: Int) -> Int {
                var end = start
                while end < strings.offset + strings.size, file[end] != 0 { end += 1 }
                return end
            }
            var forwarders: [UInt: String] = [:]
            for index in 0..<(table.size / table.entrySize) {
                let at = table.offset + index * table.entrySize
                // The name of a `~Copyable` field's type (a local data symbol).
                if let nameOffset = u32(at), nameOffset < strings.size, let value = u64(at + 8), u16(at + 6) != 0,
                   file[strings.offset + nameOffset] == accessorPrefix[0] {
                    let start = strings.offset + nameOffset
                    let end = nameEnd(start)
                    let name = Array(UnsafeRawBufferPointer(rebasing: file[start..<end]))
                    if name.starts(with: accessorPrefix), let suffix = name.lastIndex(of: UInt8(ascii: " ")),
                       suffix > accessorPrefix.count, name[suffix...].starts(with: accessorSuffix) {
                        accessors[UInt(value)] = String(decoding: name[accessorPrefix.count..<suffix], as: UTF8.self)
                        continue
                    }
                }
                // A Swift partial-apply forwarder: STT_FUNC (2), defined, `$s…TA`.
                if file[at + 4] & 0xF == 2, u16(at + 6) != 0, let nameOffset = u32(at), nameOffset + 2 < strings.size,
                   let value = u64(at + 8), file[strings.offset + nameOffset] == UInt8(ascii: "$"),
                   file[strings.offset + nameOffset + 1] == UInt8(ascii: "s") {
                    let start = strings.offset + nameOffset
                    let end = nameEnd(start)
                    if end - start > 2, file[end - 2] == UInt8(ascii: "T"), file[end - 1] == UInt8(ascii: "A") {
                        forwarders[UInt(value)] = String(decoding: UnsafeRawBufferPointer(rebasing: file[start..<end]), as: UTF8.self)
                    }
                    continue
                }
                // STT_OBJECT (1), defined (section index not 0), at least a word.
                guard let nameOffset = u32(at), file[at + 4] & 0xF == 1, u16(at + 6) != 0,
                      let value = u64(at + 8), let size = u64(at + 16), size >= 8, nameOffset < strings.size
                else { continue }
                let start = strings.offset + nameOffset
                let swift = file[start] == UInt8(ascii: "$") && file[start + 1] == UInt8(ascii: "s")
                guard swift || !objectNames.isEmpty else { continue }
                let end = nameEnd(start)
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: file[start..<end]), as: UTF8.self)
                let variable = Variable(offset: UInt(value), size: size, mangledName: name)
                if !swift {
                    if objectNames.contains(name) { objects[name] = variable }
                    continue
                }
                guard name.hasSuffix("vp") || name.hasSuffix("vpZ") else { continue }
                variables.append(variable)
            }
            return (variables, accessors, objects, forwarders)
        }
    }
}
