import CLeakCheckSupport
import Foundation

/// The global and static variables of the process, as roots a survivor may be held from:
/// each Swift variable's storage (from the images' symbol tables, in their writable segments)
/// read word by word, and every word that is a live Swift object kept as a root under the
/// variable's name (`LeakCheckCorpusTests.registry`, `Cache.shared`).
///
/// Nothing is dereferenced before it is validated: words are copied with `ProcessMemory`, an
/// object only counts when its metadata is a Swift class's whose descriptor lies in an image and
/// its reference count says it is not being deinitialised. Only Swift variables are read (not C
/// globals or runtime caches), LeakCheck's own are left out, and of the toolchain's libraries
/// only the holders that keep user objects alive (NotificationCenter's default center).
enum GlobalRoots {
    struct Root {
        /// The variable, demangled: `LeakCheckCorpusTests.registry`, `LeakCheckCorpusTests.Cache.shared`.
        let name: String
        /// An object, or the array, dictionary or set whose storage the variable holds.
        let value: Any
    }

    /// The roots of every accepted image, in image and symbol order; with `slots`, only the
    /// variables whose storage holds one of those addresses (what a backward scan found).
    static func collect(holding slots: [UInt]? = nil) -> [Root] {
        guard ProcessMemory.isSupported else { return [] }
        var images: [String: (bias: UInt, segments: [ProcessMemory.Segment])] = [:]
        var order: [String] = []
        for segment in ProcessMemory.writableSegments() {
            if images[segment.path] == nil {
                order.append(segment.path)
                images[segment.path] = (segment.loadBias, [])
            }
            images[segment.path]?.segments.append(segment)
        }
        var roots: [Root] = []
        for path in order {
            guard let image = images[path], let filter = ImageFilter(path: path) else { continue }
            for variable in symbols(of: path.isEmpty ? "/proc/self/exe" : path).variables where filter.accepts(variable.mangledName) {
                let address = image.bias &+ variable.offset
                guard image.segments.contains(where: { address >= $0.start && address + UInt(variable.size) <= $0.start + UInt($0.size) })
                else { continue }
                if let slots, !slots.contains(where: { $0 >= address && $0 < address + UInt(variable.size) }) { continue }
                roots += self.roots(in: address, size: variable.size, named: variable.mangledName)
            }
        }
        return roots
    }

    /// Which images' variables are read, and which of their variables.
    private enum ImageFilter {
        case all, defaultCenterOnly

        init?(path: String) {
            if path.isEmpty { self = .all; return }
            let file = (path as NSString).lastPathComponent
            if file.hasPrefix("libFoundationEssentials.") { self = .defaultCenterOnly; return }
            // The toolchain's and the system's libraries hold their own state, not the tests' objects.
            if file.hasPrefix("libswift") || file.hasPrefix("libFoundation") || file.hasPrefix("libXCTest")
                || file.hasPrefix("libTesting") || file.hasPrefix("lib_") || file.hasPrefix("libdispatch")
                || file.hasPrefix("libBlocksRuntime") || path.hasPrefix("/lib") || path.hasPrefix("/usr/lib")
                || file.hasPrefix("linux-vdso") || file.hasPrefix("ld-linux") {
                return nil
            }
            self = .all
        }

        func accepts(_ mangled: String) -> Bool {
            switch self {
            case .all:
                // LeakCheck's own state (report sinks, watchers) is not a holder to report.
                return !mangled.hasPrefix("$s9LeakCheck") && !mangled.hasPrefix("$s11LeakRuntime") && !mangled.hasPrefix("$s10LeakReport")
            case .defaultCenterOnly:
                return mangled.contains("14_defaultCenter")
            }
        }
    }

    private static let symbolCache = NSLock()
    nonisolated(unsafe) private static var symbolTables: [String: ELFSymbols] = [:]

    /// The symbols of the image file at `path`, read once.
    static func symbols(of path: String) -> ELFSymbols {
        symbolCache.lock()
        defer { symbolCache.unlock() }
        if let known = symbolTables[path] { return known }
        let symbols = ELFSymbols(path: path)
        symbolTables[path] = symbols
        return symbols
    }

    private static func roots(in address: UInt, size: Int, named mangled: String) -> [Root] {
        let words = min(size, 4096) / MemoryLayout<UInt>.size
        var copy = [UInt](repeating: 0, count: words)
        let copied = copy.withUnsafeMutableBytes { ProcessMemory.copy(from: address, into: $0) }
        guard copied else { return [] }
        var roots: [Root] = []
        var name: String?
        for word in copy where word != 0 {
            guard let object = LiveObject.validated(at: word) else { continue }
            if name == nil { name = demangledVariable(mangled) }
            roots.append(Root(name: name!, value: LiveObject.value(of: object)))
        }
        return roots
    }

    /// `static LeakCheckCorpusTests.Cache.shared : …` → `LeakCheckCorpusTests.Cache.shared`;
    /// `M.(_defaultCenter in _D7F0…)` → `M._defaultCenter`.
    static func demangledVariable(_ mangled: String) -> String {
        var text = mangled.withCString { name -> String in
            guard let demangled = lc_demangle(name, strlen(name)) else { return mangled }
            defer { free(demangled) }
            return String(cString: demangled)
        }
        if let colon = text.range(of: " : ") { text = String(text[..<colon.lowerBound]) }
        if text.hasPrefix("static ") { text.removeFirst("static ".count) }
        while let open = text.range(of: "("), let inWord = text.range(of: " in ", range: open.upperBound..<text.endIndex),
              let close = text.range(of: ")", range: inWord.upperBound..<text.endIndex) {
            let inner = text[open.upperBound..<inWord.lowerBound]
            text.replaceSubrange(open.lowerBound..<close.upperBound, with: inner)
        }
        return text
    }
}

/// Live Swift objects found by address, validated before they are touched.
enum LiveObject {
    /// The object at `address`, retained, if it is one: its metadata a Swift class's (kind 0,
    /// a class descriptor inside an image), its reference count not deinitialising. Nil otherwise.
    static func validated(at address: UInt) -> AnyObject? {
        guard isObject(at: address) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
    }

    /// Whether `address` holds a live Swift object, as `validated(at:)` checks it, without
    /// forming a reference to it.
    static func isObject(at address: UInt) -> Bool {
        guard address >= 0x10000, address % 8 == 0, let metadata = ProcessMemory.word(at: address),
              let counts = ProcessMemory.word(at: address + 8),
              metadata >= 0x10000, metadata % 8 == 0, ProcessMemory.word(at: metadata) == 0,
              let descriptor = ProcessMemory.word(at: metadata + 40), descriptor % 4 == 0,
              let flags = ProcessMemory.word(at: descriptor), UInt32(truncatingIfNeeded: flags) & 0x1F == 16,
              lc_in_image(UInt(descriptor)) == 1
        else { return false }
        return !isDeinitializing(counts)
    }

    /// Whether a heap object's reference counts (its second word) say it is being deinitialised:
    /// inline counts (top bit clear) with bit 32, IsDeiniting (ABI: swift/RefCount.h).
    private static func isDeinitializing(_ counts: UInt) -> Bool {
        counts >> 63 == 0 && (counts >> 32) & 1 == 1
    }

    /// The object or closure context at `address`, retained (balance it with `release()`), when
    /// it is one and is not being deinitialised; nil otherwise.
    static func retained(at address: UInt) -> Unmanaged<AnyObject>? {
        guard isObject(at: address) || isClosureContext(at: address), let counts = ProcessMemory.word(at: address + 8),
              !isDeinitializing(counts)
        else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).retain()
    }

    /// Whether `address` holds a closure context (HeapLocalVariable metadata, kind 0x400, emitted
    /// in an image, with its capture descriptor in an image too), checked by copying.
    static func isClosureContext(at address: UInt) -> Bool {
        guard let metadata = ProcessMemory.word(at: address), metadata >= 0x10000, metadata % 8 == 0,
              ProcessMemory.word(at: metadata) == 0x400, lc_in_image(UInt(metadata)) == 1,
              let descriptor = ProcessMemory.word(at: metadata + 16)
        else { return false }
        return descriptor == 0 || lc_in_image(UInt(descriptor)) == 1
    }

    /// An array's, dictionary's or set's storage as the collection it backs, so the walk names
    /// elements (`registry[0]`, `cache["a"]`); any other object as itself.
    static func value(of object: AnyObject) -> Any {
        let name = _typeName(type(of: object), qualified: true)
        let prefixes = ["Swift._ContiguousArrayStorage<", "Swift._DictionaryStorage<", "Swift._SetStorage<"]
        guard let kind = prefixes.firstIndex(where: name.hasPrefix) else { return object }
        let arguments = genericArguments(of: type(of: object), count: kind == 1 ? 2 : 1)
        guard let first = arguments.first else { return object }
        func array<Element>(_: Element.Type) -> Any { unsafeBitCast(object, to: [Element].self) }
        switch kind {
        case 0:
            return _openExistential(first, do: array)
        case 1:
            guard let key = first as? any Hashable.Type, arguments.count == 2 else { return object }
            func dictionary<Key: Hashable>(_: Key.Type) -> Any {
                func typed<Value>(_: Value.Type) -> Any { unsafeBitCast(object, to: [Key: Value].self) }
                return _openExistential(arguments[1], do: typed)
            }
            return dictionary(key)
        default:
            guard let element = first as? any Hashable.Type else { return object }
            func set<Element: Hashable>(_: Element.Type) -> Any { unsafeBitCast(object, to: Set<Element>.self) }
            return set(element)
        }
    }

    /// A generic class's arguments, where its metadata keeps them: after the positive-size words
    /// less the class's immediate members (ABI/Metadata.h, getGenericArgumentOffset).
    private static func genericArguments(of type: AnyObject.Type, count: Int) -> [Any.Type] {
        let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
        guard let descriptor = metadata.load(fromByteOffset: 40, as: UnsafeRawPointer?.self) else { return [] }
        let flags = descriptor.load(as: UInt32.self)
        guard flags & 0x80 != 0 else { return [] }  // IsGeneric
        let positive = Int(descriptor.load(fromByteOffset: 28, as: UInt32.self))
        let immediate = Int(descriptor.load(fromByteOffset: 32, as: UInt32.self))
        let offset = positive - immediate
        guard offset > 0 else { return [] }
        return (0..<count).compactMap { index in
            metadata.load(fromByteOffset: (offset + index) * 8, as: UnsafeRawPointer?.self)
                .map { unsafeBitCast($0, to: Any.Type.self) }
        }
    }
}
