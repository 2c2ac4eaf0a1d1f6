import CLeakCheckSupport
import LeakReport

// Following a stored closure into its context: what it captures, read from the capture
// descriptor the compiler emits for every closure context (RemoteInspection/Records.h) and the
// context's metadata (ABI/Metadata.h, HeapLocalVariable).
//
// Everything read here is alive: the walk holds a copy of the closure, which retains its context,
// which retains its captures. Only the end of a context with no readable descriptor is scanned
// word by word, and its words are only compared with objects the search already holds.

extension ReferenceWalk {
    /// What following a closure found.
    enum ClosureReading {
        /// Its context was read; `holdsStrongly` is false when it captures nothing, or only
        /// `weak` and `unowned` references.
        case read(holdsStrongly: Bool)
        /// Not a closure LeakCheck can look into (a block, an unreadable context).
        case unreadable
    }

    /// The references a closure value holds, as edges of kind `closure` named by where the closure
    /// is stored (`path`).
    mutating func walkClosure(
        _ closure: Any, holder: String, path: String, nesting: Int, into edges: inout [ReferenceEdge]
    ) -> ClosureReading {
        let type = type(of: closure)
        guard TypeMetadata.isThickFunction(type), TypeMetadata.layout(of: type).size >= 16 else { return .unreadable }
        func words<Value>(_ value: Value) -> (function: UInt, context: UInt) {
            withUnsafeBytes(of: value) { ($0.load(as: UInt.self), $0.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self)) }
        }
        let (function, address) = _openExistential(closure, do: words)
        guard address != 0 else { return .read(holdsStrongly: false) }
        let found = edges.count
        let strong = withExtendedLifetime(closure) {
            walkContext(address, holder: holder, path: path, function: function, nesting: nesting + 1, into: &edges)
        }
        return .read(holdsStrongly: strong || edges.count > found)
    }

    /// Reads one heap context: a closure's, a captured `var`'s box, or the single object a closure
    /// captures (then the context is that object; with the closure's `function`, a method
    /// reference is named on the edge). Returns whether anything in it is held strongly.
    @discardableResult
    mutating func walkContext(
        _ address: UInt, holder: String, path: String, as kind: RetainPathStep.Kind = .closure, function: UInt = 0,
        nesting: Int, into edges: inout [ReferenceEdge]
    ) -> Bool {
        guard nesting <= Self.maxNesting, !budgetExhausted, address != 0 else { return false }
        valuesVisited += 1
        let context = UnsafeRawPointer(bitPattern: address)!
        let metadata = context.load(as: UnsafeRawPointer.self)
        switch metadata.load(as: UInt.self) {
        case 0, 0x800...:
            // One captured object and nothing else: the context is the object.
            let object = Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue()
            edges.append(ReferenceEdge(target: object, property: path, kind: kind, proven: untypedDepth == 0,
                                       via: methodReference(function: function)))
            return true
        case 0x400:
            return walkCaptures(of: context, metadata: metadata, holder: holder, path: path, as: kind, nesting: nesting, into: &edges)
        case 0x500:
            // A generic box (swift_allocBox): the value's offset, then its type.
            let offset = Int(metadata.load(fromByteOffset: 8, as: UInt32.self))
            let boxed = unsafeBitCast(metadata.load(fromByteOffset: 16, as: UnsafeRawPointer.self), to: Any.Type.self)
            guard TypeMetadata.isCopyable(boxed) else {
                unreadContexts += 1
                return true
            }
            walkStored(at: context + offset, type: boxed, holder: holder, path: path, as: kind, nesting: nesting, into: &edges)
            return true
        default:
            unreadContexts += 1
            return true
        }
    }

    /// The captures listed by a context's capture descriptor, each read at its offset; what the
    /// descriptor cannot lay out (generic captures) is scanned conservatively.
    private mutating func walkCaptures(
        of context: UnsafeRawPointer, metadata: UnsafeRawPointer, holder: String, path: String,
        as kind: RetainPathStep.Kind, nesting: Int, into edges: inout [ReferenceEdge]
    ) -> Bool {
        let word = MemoryLayout<UInt>.size
        var offset = Int(metadata.load(fromByteOffset: 8, as: UInt32.self))
        guard let descriptor = metadata.load(fromByteOffset: 16, as: UnsafeRawPointer?.self) else {
            return scanConservatively(context, from: offset, path: path, into: &edges)
        }
        let captures = Int(descriptor.load(as: UInt32.self))
        let sources = Int(descriptor.load(fromByteOffset: 4, as: UInt32.self))
        let bindings = Int(descriptor.load(fromByteOffset: 8, as: UInt32.self))
        guard captures < 1024, bindings < 1024 else {
            unreadContexts += 1
            return true
        }
        let generic = sources > 0 || bindings > 0
        let environment = GenericCaptures(
            descriptor: descriptor, captures: captures, sources: sources, bindings: bindings,
            bindingsAt: context + offset)
        offset += bindings * word
        var strong = false
        for index in 0..<captures {
            let record = descriptor + 12 + 4 * index
            let relative = record.load(as: Int32.self)
            guard relative != 0 else {
                return scanConservatively(context, from: offset, path: path, into: &edges) || strong
            }
            let name = MangledName(record + Int(relative))
            if name.ownership != .strong {
                // Weak and unowned captures hold nothing; step over their storage.
                let stored = generic ? nil : name.resolved(droppingSuffix: 2)
                let layout = stored.map(TypeMetadata.layout(of:)) ?? (size: word, alignment: word)
                offset = align(offset, layout.alignment) + layout.size
                continue
            }
            switch name.captureShape {
            case let .thickFunction(words, optional):
                offset = align(offset, word)
                // An optional closure that is nil has a null function and no context to read.
                let function = context.load(fromByteOffset: offset, as: UInt.self)
                let inner = context.load(fromByteOffset: offset + word, as: UInt.self)
                if inner != 0, !optional || function != 0 {
                    strong = walkContext(inner, holder: holder, path: path, as: kind, function: function, nesting: nesting + 1,
                                         into: &edges) || strong
                }
                offset += words * word
            case .opaqueWord:
                offset = align(offset, word) + word
            case .box:
                offset = align(offset, word)
                // A box of a `weak var` (a `[weak self]` captured by a closure of a generic
                // function) holds nothing: its storage is not a strong reference to read.
                if !name.holdsWeakly {
                    let box = context.load(fromByteOffset: offset, as: UInt.self)
                    strong = walkContext(box, holder: holder, path: path, as: kind, nesting: nesting + 1, into: &edges) || strong
                }
                offset += word
            case .formal:
                // A generic closure's capture: a generic parameter is bound by the context's own
                // bindings; a type that mentions none resolves as in any closure; a generic class
                // is one strong reference, whatever its arguments.
                guard let type = generic ? environment.type(of: name) : name.resolved() else {
                    if generic, name.isGenericClassReference(optional: true) {
                        offset = align(offset, word)
                        let address = context.load(fromByteOffset: offset, as: UInt.self)
                        if address != 0, let object = LiveObject.validated(at: address) {
                            strong = true
                            edges.append(ReferenceEdge(target: object, property: path, kind: kind, proven: untypedDepth == 0))
                        }
                        offset += word
                        continue
                    }
                    return scanConservatively(context, from: offset, path: path, into: &edges) || strong
                }
                let layout = TypeMetadata.layout(of: type)
                offset = align(offset, layout.alignment)
                if ValueRole(type) != .plain, TypeMetadata.isCopyable(type) {
                    // Strong only if it holds something: an existential of a plain value, an empty
                    // array, a nil optional hold nothing.
                    let found = edges.count
                    walkStored(at: context + offset, type: type, holder: holder, path: path, as: kind, nesting: nesting, into: &edges)
                    strong = strong || edges.count > found
                }
                offset += layout.size
            }
        }
        return strong
    }

    /// What a generic closure context says of its generic parameters (Records.h,
    /// `CaptureDescriptor`): after the capture types, one record a metadata source, a generic
    /// parameter's mangled name then where its metadata is (`B<n>`: the context's n-th binding);
    /// the bindings are words at the start of the captures.
    struct GenericCaptures {
        let descriptor: UnsafeRawPointer
        let captures: Int
        let sources: Int
        let bindings: Int
        let bindingsAt: UnsafeRawPointer

        /// The type of a capture: a generic parameter bound by a binding, or a type that mentions
        /// no generic parameter; nil for anything else.
        func type(of name: MangledName) -> Any.Type? {
            if name.isPlainText, let metadata = binding(of: name.plain) { return metadata }
            guard !name.mentionsGenericParameter else { return nil }
            return name.resolved()
        }

        private func binding(of parameter: [UInt8]) -> Any.Type? {
            for index in 0..<sources {
                let record = descriptor + 12 + 4 * captures + 8 * index
                let nameOffset = record.load(as: Int32.self)
                let sourceOffset = (record + 4).load(as: Int32.self)
                guard nameOffset != 0, sourceOffset != 0 else { continue }
                let source = MangledName(record + 4 + Int(sourceOffset))
                guard MangledName(record + Int(nameOffset)).plain == parameter, source.isPlainText,
                      source.plain.first == UInt8(ascii: "B"),
                      let position = Int(String(decoding: source.plain.dropFirst(), as: UTF8.self)),
                      position < bindings
                else { continue }
                let metadata = bindingsAt.load(fromByteOffset: position * MemoryLayout<UInt>.size, as: UInt.self)
                guard metadata >= 0x10000, metadata % 8 == 0, lc_in_image(metadata) == 1 || ProcessMemory.word(at: metadata) != nil
                else { return nil }
                return unsafeBitCast(UnsafeRawPointer(bitPattern: metadata)!, to: Any.Type.self)
            }
            return nil
        }
    }

    /// A value of `type` stored at `address`, copied out (retained, as a field load would) and walked.
    mutating func walkStored(
        at address: UnsafeRawPointer, type: Any.Type, holder: String, path: String, as kind: RetainPathStep.Kind,
        nesting: Int, into edges: inout [ReferenceEdge]
    ) {
        func copy<Value>(_: Value.Type) -> Any { address.assumingMemoryBound(to: Value.self).pointee }
        let value = _openExistential(type, do: copy)
        walk(value, holder: holder, path: path, kind: kind, nesting: nesting + 1, into: &edges)
    }

    /// The words of a context past `offset`, up to the end of its malloc block, compared with the
    /// objects the search holds: a match is an edge of kind `unknown` (it may be a weak capture).
    private mutating func scanConservatively(
        _ context: UnsafeRawPointer, from offset: Int, path: String, into edges: inout [ReferenceEdge]
    ) -> Bool {
        unreadContexts += 1
        let address = UInt(bitPattern: context)
        let size = min(ProcessMemory.blockSize(at: address), 4096)
        var position = align(offset, MemoryLayout<UInt>.size)
        var found = false
        while position + MemoryLayout<UInt>.size <= size {
            if let word = ProcessMemory.word(at: address + UInt(position)), let object = knownObject(at: word) {
                edges.append(ReferenceEdge(target: object, property: path, kind: .unknown, proven: false))
                found = true
            }
            position += MemoryLayout<UInt>.size
        }
        // Captures that cannot be laid out may hold anything: never a closure to call innocent.
        _ = found
        return true
    }

    private func align(_ offset: Int, _ alignment: Int) -> Int {
        let mask = max(alignment, 1) - 1
        return (offset + mask) & ~mask
    }
}

// Holders LeakCheck has no types for — a running task's memory, a dispatch source's C structures —
// read as words: every word is compared with the objects the search holds, and followed when it
// is a closure context (its captures then read by type) or the start of another malloc block.
// Edges found so are possible, not proven.
extension ReferenceWalk {
    /// The most malloc blocks one untyped scan reads, and the bytes it reads of each.
    private static let untypedBlocks = 256
    private static let untypedBlockBytes = 1024

    /// Scans the block at `address` and the blocks it points to, `depth` levels deep.
    mutating func scanUntyped(
        _ address: UInt, holder: String, path: String, as kind: RetainPathStep.Kind, depth: Int,
        into edges: inout [ReferenceEdge]
    ) {
        var visited: Set<UInt> = [address]
        var level = [address]
        var blocks = 0
        untypedDepth += 1
        defer { untypedDepth -= 1 }
        for remaining in stride(from: depth, through: 0, by: -1) {
            var nextLevel: [UInt] = []
            for block in level {
                guard blocks < Self.untypedBlocks, !budgetExhausted else { return }
                blocks += 1
                valuesVisited += 1
                let size = min(ProcessMemory.blockSize(at: block), Self.untypedBlockBytes)
                guard size >= MemoryLayout<UInt>.size else { continue }
                var words = [UInt](repeating: 0, count: size / MemoryLayout<UInt>.size)
                guard words.withUnsafeMutableBytes({ ProcessMemory.copy(from: block, into: $0) }) else { continue }
                for word in words where word >= 0x10000 && word % 8 == 0 && visited.insert(word).inserted {
                    if let object = knownObject(at: word) {
                        edges.append(ReferenceEdge(target: object, property: path, kind: kind, proven: false))
                    } else if LiveObject.isClosureContext(at: word) {
                        walkContext(word, holder: holder, path: path, as: kind, nesting: 1, into: &edges)
                    } else if remaining > 0, word % 16 == 0, ProcessMemory.blockSize(at: word) > 0 {
                        nextLevel.append(word)
                    }
                }
            }
            level = nextLevel
        }
    }
}
