import LeakReport

/// Walks the stored values of one holder — through structs, enums, optionals, tuples,
/// collections and existentials — to the class instances it holds strongly.
///
/// `weak`, `unowned` and `unowned(unsafe)` fields are skipped unread: they hold nothing, and
/// loading an `unowned` reference whose object is gone would trap. Where the runtime metadata
/// cannot say how a field is held, its references are walked with the kind `unknown`.
struct ReferenceWalk {
    /// Values looked at across all holders, so one huge collection cannot stall the search.
    var valuesVisited = 0
    let valueBudget: Int
    private(set) var suspects: [RetainSuspect] = []
    private var suspectSet: Set<RetainSuspect> = []
    private var typeNames: [ObjectIdentifier: String] = [:]
    private var roles: [ObjectIdentifier: ValueRole] = [:]
    private var customReflectable: [ObjectIdentifier: Bool] = [:]
    private var fieldCache: [ObjectIdentifier: [TypeMetadata.StoredField]?] = [:]

    static let maxNesting = 48
    private static let maxSuspects = 32

    /// False to walk as if the runtime's field metadata could not be read (every step `unknown`).
    let readsFieldMetadata: Bool
    private var layouts: [ObjectIdentifier: FieldLayout?] = [:]
    private var known: [UInt: AnyObject] = [:]
    /// Above zero while walking what was found without type information: its edges are not proven.
    var untypedDepth = 0
    private var structLayouts: [ObjectIdentifier: FieldLayout?] = [:]
    /// Closure contexts (or parts of them) read as words or not at all, so far: a closure whose
    /// walk adds to it may hold what no edge shows.
    var unreadContexts = 0
    /// The method reference each closure function read so far is, if any.
    private var methodReferences: [UInt: RetainPathStep?] = [:]
    /// The steps (holder, then property) that are a dispatch source's handlers, read so far.
    private(set) var dispatchHandlerSteps: Set<[String]> = []

    init(valueBudget: Int, readsFieldMetadata: Bool = true) {
        self.valueBudget = valueBudget
        self.readsFieldMetadata = readsFieldMetadata
    }

    var budgetExhausted: Bool { valuesVisited >= valueBudget }

    /// The strong references held by a class instance, its superclasses' fields included.
    mutating func edges(of object: AnyObject) -> [ReferenceEdge] {
        var edges: [ReferenceEdge] = []
        let holder = typeName(type(of: object))
        if let layout = layout(of: type(of: object)) {
            // Straight from the instance's memory, as a mirror would read it, without one.
            let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
            for field in layout.fields {
                walk(field.load(from: base), holder: holder, path: field.name, kind: .strong, nesting: 1, into: &edges)
            }
            for range in layout.opaqueRanges {
                let start = UInt(bitPattern: base) + UInt(range.offset)
                if let storage = range.collectionStorage {
                    // A collection declared in a `Mutex`: its storage, typed by the declaration.
                    if let address = ProcessMemory.word(at: start), let found = LiveObject.validated(at: address),
                       _typeName(type(of: found), qualified: true).hasPrefix(storage) {
                        walk(LiveObject.value(of: found), holder: holder, path: range.name, kind: .strong, nesting: 1, into: &edges)
                    }
                    continue
                }
                for word in stride(from: start, to: start + UInt(range.size), by: MemoryLayout<UInt>.size) {
                    guard let address = ProcessMemory.word(at: word), let found = LiveObject.validated(at: address) else { continue }
                    untypedDepth += 1
                    walk(LiveObject.value(of: found), holder: holder, path: range.name, kind: .strong, nesting: 1, into: &edges)
                    untypedDepth -= 1
                }
            }
            withExtendedLifetime(object) {}
            return edges
        }
        // A custom mirror shows whatever its author chose, not the stored fields.
        let custom = !readsFieldMetadata || isCustomReflectable(object)
        var mirror: Mirror? = Mirror(reflecting: object)
        while let level = mirror {
            walkFields(of: level, storedIn: custom ? nil : level.subjectType, holder: holder,
                       path: "", kind: .strong, nesting: 0, into: &edges)
            mirror = level.superclassMirror
        }
        return edges
    }

    /// The step naming the method reference whose function is at `function` (`MethodReference`),
    /// worked out once for each function; nil for any other closure.
    mutating func methodReference(function: UInt) -> RetainPathStep? {
        guard function != 0 else { return nil }
        if let known = methodReferences[function] { return known }
        let step = MethodReference.step(function: function)
        methodReferences[function] = step
        return step
    }

    /// What an armed dispatch timer's handler holds, as edges named by the handler
    /// (`eventHandler`). The handler's context is retained while it is read: libdispatch may
    /// release it once the timer is cancelled; one being released gives no edge.
    mutating func edges(ofHandler handler: DispatchSourceMemory.Handler, timer: String) -> [ReferenceEdge] {
        var edges: [ReferenceEdge] = []
        guard handler.closureContext != 0, let context = LiveObject.retained(at: handler.closureContext) else { return edges }
        defer { context.release() }
        walkContext(handler.closureContext, holder: timer, path: handler.name, nesting: 1, into: &edges)
        return edges
    }

    /// The strong references held by a root: a class instance is its own edge; a value is walked.
    mutating func edges(ofRoot root: Any, holder: String) -> [ReferenceEdge] {
        var edges: [ReferenceEdge] = []
        walk(root, holder: holder, path: "", kind: .strong, nesting: 0, into: &edges)
        return edges
    }

    private mutating func walkFields(
        of mirror: Mirror, storedIn type: Any.Type?, holder: String, path: String,
        kind: RetainPathStep.Kind, nesting: Int, into edges: inout [ReferenceEdge]
    ) {
        let children = mirror.children
        var fields = type.flatMap { storedFields(of: $0) }
        if fields?.count != children.count { fields = nil }
        var index = children.startIndex
        for position in 0..<children.count {
            defer { children.formIndex(after: &index) }
            if let fields, fields[position].ownership != .strong { continue }
            let child = children[index]
            let label = child.label.map(RetainPathNames.property) ?? "[\(position)]"
            // Trust the metadata only where its field is the one the mirror shows.
            let known = fields.map { $0[position].name == child.label } ?? false
            walk(child.value, holder: holder, path: Self.extend(path, label, kind),
                 kind: known ? kind : .unknown, nesting: nesting + 1, into: &edges)
        }
    }

    mutating func walk(
        _ value: Any, holder: String, path: String, kind: RetainPathStep.Kind, nesting: Int,
        into edges: inout [ReferenceEdge]
    ) {
        guard nesting <= Self.maxNesting, valuesVisited < valueBudget else { return }
        valuesVisited += 1
        let valueType = type(of: value)
        switch role(of: valueType) {
        case .object:
            edges.append(ReferenceEdge(target: value as AnyObject, property: path, kind: kind,
                                       proven: kind != .unknown && untypedDepth == 0))
            return
        case .plain:
            return
        case .closure where !opens(value, as: valueType), .task where !opens(value, as: valueType),
             .value where !opens(value, as: valueType):
            // Inside another existential (an element of `[Any]`, an enum payload of protocol
            // type read through its mirror): walked as the value inside, or named if that fails.
            if let inner = Self.unwrapped(value, as: valueType) {
                walk(inner, holder: holder, path: path, kind: kind, nesting: nesting + 1, into: &edges)
            } else if role(of: valueType) != .value {
                suspect(holder, path, role(of: valueType) == .task ? .task : .closure)
            } else {
                walkMirror(value, holder: holder, path: path, kind: kind, nesting: nesting, into: &edges)
            }
            return
        case .closure:
            // A closure read by its types is no suspect: its captures are edges the search
            // follows. One read in part as words, or not at all, may hold what no edge shows.
            let unread = unreadContexts
            switch walkClosure(value, holder: holder, path: path, nesting: nesting, into: &edges) {
            case .read(holdsStrongly: true) where unreadContexts > unread, .unreadable:
                suspect(holder, path, .closure)
            case .read:
                break
            }
            return
        case .dispatchSource:
            // Its handlers live in libdispatch's C structures, behind the wrapped source: read by
            // their layout where it checks out, else as words.
            let found = edges.count
            let object = value as AnyObject
            // Unread handlers may hold anything; read ones only if they capture something strongly.
            var holdsStrongly = true
            withExtendedLifetime(object) {
                if let handlers = DispatchSourceMemory.handlers(of: object) {
                    holdsStrongly = false
                    for handler in handlers where handler.closureContext != 0 {
                        let handlerPath = Self.extend(path, handler.name, kind)
                        dispatchHandlerSteps.insert([holder, handlerPath])
                        holdsStrongly = walkContext(handler.closureContext, holder: holder, path: handlerPath,
                                                    nesting: nesting + 1, into: &edges) || holdsStrongly
                    }
                } else {
                    scanUntyped(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()), holder: holder, path: path,
                                as: .closure, depth: 5, into: &edges)
                }
            }
            if edges.count == found, holdsStrongly { suspect(holder, path, .dispatchSource) }
            return
        case .task:
            // A task's closure context and its suspended frames live in its own allocation.
            func taskAddress<Value>(_ task: Value) -> UInt { withUnsafeBytes(of: task) { $0.load(as: UInt.self) } }
            let address = _openExistential(value, do: taskAddress)
            switch TaskMemory.state(of: address, resultType: TaskMemory.resultType(ofTaskType: valueType)) {
            case .finished:
                break  // it has released what it captured
            case .unknown:
                suspect(holder, path, .task)
            case let .running(closureContext):
                let found = edges.count
                withExtendedLifetime(value) {
                    if let closureContext {
                        // The task keeps its closure's context until it ends: read it by its types.
                        walkContext(closureContext, holder: holder, path: path, as: .task, nesting: nesting + 1, into: &edges)
                    } else {
                        scanUntyped(address, holder: holder, path: path, as: .task, depth: 1, into: &edges)
                    }
                }
                if edges.count == found { suspect(holder, path, .task) }
            }
            return
        case .value:
            break
        }
        // The standard containers directly: much cheaper than their mirrors.
        let elementKind: RetainPathStep.Kind = kind == .strong ? .collection : kind
        if let optional = value as? any OptionalValue {
            if let wrapped = optional.wrappedAny {
                walk(wrapped, holder: holder, path: path, kind: kind, nesting: nesting + 1, into: &edges)
            }
            return
        }
        if let elements = value as? any ElementSequence {
            // `[UInt8]`, `[Int]`, `Set<String>`: nothing to look at in any element.
            if role(of: type(of: elements).elementType) == .plain { return }
            var position = 0
            elements.forEachElement { element in
                walk(element, holder: holder, path: Self.extend(path, "[\(position)]", kind), kind: elementKind,
                     nesting: nesting + 1, into: &edges)
                position += 1
            }
            return
        }
        if let dictionary = value as? any KeyValueSequence {
            var position = 0
            dictionary.forEachPair { key, element in
                walk(key, holder: holder, path: Self.extend(path, ".keys[\(position)]", kind), kind: elementKind,
                     nesting: nesting + 1, into: &edges)
                walk(element, holder: holder, path: Self.extend(path, "[\(RetainPathNames.key(key))]", kind), kind: elementKind,
                     nesting: nesting + 1, into: &edges)
                position += 1
            }
            return
        }
        // Structs from their field metadata, as classes: a custom `Mirror` hides nothing.
        if let layout = structLayout(of: valueType), opens(value, as: valueType) {
            func load<Value>(_ value: Value) -> [Any] {
                withUnsafeBytes(of: value) { bytes in
                    guard let base = bytes.baseAddress else { return [] }
                    return layout.fields.map { $0.load(from: base) }
                }
            }
            let fields = _openExistential(value, do: load)
            for (field, fieldValue) in zip(layout.fields, fields) {
                walk(fieldValue, holder: holder, path: Self.extend(path, field.name, kind), kind: kind,
                     nesting: nesting + 1, into: &edges)
            }
            return
        }
        walkMirror(value, holder: holder, path: path, kind: kind, nesting: nesting, into: &edges)
    }

    /// A value through its mirror: structs whose layout is not read, other collections, enum
    /// payloads, tuples, custom mirrors.
    private mutating func walkMirror(
        _ value: Any, holder: String, path: String, kind: RetainPathStep.Kind, nesting: Int,
        into edges: inout [ReferenceEdge]
    ) {
        let valueType = type(of: value)
        let elementKind: RetainPathStep.Kind = kind == .strong ? .collection : kind
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .struct?:
            let stored = !readsFieldMetadata || value is CustomReflectable ? nil : valueType
            walkFields(of: mirror, storedIn: stored, holder: holder, path: path, kind: kind,
                       nesting: nesting, into: &edges)
        case .collection?, .set?, .dictionary?:
            // Other collections (a library's ordered dictionary): elements as their mirror lists them.
            for (position, child) in mirror.children.enumerated() {
                walk(child.value, holder: holder, path: Self.extend(path, "[\(position)]", kind), kind: elementKind,
                     nesting: nesting + 1, into: &edges)
            }
        default:
            // Enum payloads (labelled with the case), tuples (`.0` or their labels), and
            // custom mirrors.
            let custom = mirror.displayStyle != .enum && mirror.displayStyle != .tuple
            let childKind: RetainPathStep.Kind = custom && kind != .closure ? .unknown : kind
            for (position, child) in mirror.children.enumerated() {
                let label = child.label.map(RetainPathNames.property) ?? "[\(position)]"
                walk(child.value, holder: holder, path: Self.extend(path, label, kind),
                     kind: childKind, nesting: nesting + 1, into: &edges)
            }
        }
    }

    /// Whether `value` opens as a value of `type` (`type(of:)`), whose bytes can then be read by
    /// `type`'s layout. Not when it is an existential inside the `Any` (an element of `[any P]`,
    /// an enum payload of protocol type read through its mirror): `type(of:)` looks through it,
    /// opening does not.
    private func opens(_ value: Any, as type: Any.Type) -> Bool {
        func opened<Value>(_: Value) -> Bool { ObjectIdentifier(Value.self) == ObjectIdentifier(type) }
        return _openExistential(value, do: opened)
    }

    /// The value inside `value` when `value` opens as an opaque existential (`Any`, `any P`)
    /// holding a value of `type`: copied out of the existential's buffer (inline) or box, as its
    /// own type. Nil for any other representation (class-bound, `Error`) or a container whose
    /// metadata is not `type`'s. Only the walk's own copy is read.
    static func unwrapped(_ value: Any, as type: Any.Type) -> Any? {
        func project<Container>(_ container: Container) -> Any? {
            guard TypeMetadata.isOpaqueExistential(Container.self) else { return nil }
            return withUnsafeBytes(of: container) { bytes -> Any? in
                let word = MemoryLayout<UInt>.size
                guard bytes.count >= 4 * word, let start = bytes.baseAddress,
                      bytes.load(fromByteOffset: 3 * word, as: UnsafeRawPointer.self) == TypeMetadata.metadataPointer(type)
                else { return nil }
                var address = start
                if !TypeMetadata.isStoredInline(type) {
                    // A box: a heap object's header, then the value at its alignment.
                    let alignment = TypeMetadata.layout(of: type).alignment
                    address = UnsafeRawPointer(bytes.load(as: UnsafeRawPointer.self)) + ((2 * word + alignment - 1) & ~(alignment - 1))
                }
                func copy<Value>(_: Value.Type) -> Any { address.assumingMemoryBound(to: Value.self).pointee }
                return _openExistential(type, do: copy)
            }
        }
        return _openExistential(value, do: project)
    }

    /// Where a value inside a holder is: the path grows with each field and element, except
    /// inside a closure, whose step is named by where the closure is stored.
    static func extend(_ path: String, _ label: String, _ kind: RetainPathStep.Kind) -> String {
        if kind == .closure || kind == .task { return path }
        if label.hasPrefix("[") { return path + label }
        return RetainPathNames.join(path, label)
    }

    /// Objects the search holds, by address, for the conservative scan of a context.
    mutating func know(_ object: AnyObject) {
        known[UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())] = object
    }

    func knownObject(at address: UInt) -> AnyObject? {
        known[address]
    }

    private mutating func structLayout(of type: Any.Type) -> FieldLayout? {
        guard readsFieldMetadata else { return nil }
        let key = ObjectIdentifier(type)
        if let layout = structLayouts[key] { return layout }
        let layout = TypeMetadata.kind(of: type) == .struct ? FieldLayout(struct: type) : nil
        structLayouts[key] = layout
        return layout
    }

    private mutating func layout(of type: AnyObject.Type) -> FieldLayout? {
        guard readsFieldMetadata else { return nil }
        let key = ObjectIdentifier(type)
        if let layout = layouts[key] { return layout }
        let layout = FieldLayout(type)
        layouts[key] = layout
        return layout
    }

    /// What a value of `type` is to the walk, worked out once for each type.
    private mutating func role(of type: Any.Type) -> ValueRole {
        let key = ObjectIdentifier(type)
        if let role = roles[key] { return role }
        let role = ValueRole(type)
        roles[key] = role
        return role
    }

    /// `String(reflecting:)`, once for each type.
    mutating func typeName(_ type: Any.Type) -> String {
        let key = ObjectIdentifier(type)
        if let name = typeNames[key] { return name }
        let name = String(reflecting: type)
        typeNames[key] = name
        return name
    }

    private mutating func isCustomReflectable(_ object: AnyObject) -> Bool {
        let key = ObjectIdentifier(type(of: object))
        if let custom = customReflectable[key] { return custom }
        let custom = object is CustomReflectable
        customReflectable[key] = custom
        return custom
    }

    private mutating func storedFields(of type: Any.Type) -> [TypeMetadata.StoredField]? {
        let key = ObjectIdentifier(type)
        if let cached = fieldCache[key] { return cached }
        let fields = TypeMetadata.storedFields(of: type)
        fieldCache[key] = fields
        return fields
    }

    private mutating func suspect(_ holder: String, _ property: String, _ kind: RetainSuspect.Kind) {
        guard suspects.count < Self.maxSuspects else { return }
        let suspect = RetainSuspect(holder: holder, property: property, kind: kind)
        if suspectSet.insert(suspect).inserted { suspects.append(suspect) }
    }
}
