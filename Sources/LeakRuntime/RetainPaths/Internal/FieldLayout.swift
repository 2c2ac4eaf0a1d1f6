@_spi(Reflection) import Swift

/// The stored fields of a class or struct that may hold references — a class's superclasses'
/// fields included, `weak`, `unowned` and plain-data fields left out — with where each lies in an
/// instance or value. A custom `Mirror` does not hide them.
///
/// Worked out once per type from the runtime (`_forEachField` for names, offsets and types,
/// `TypeMetadata` for ownership), so the walk reads each field straight from the instance instead
/// of building a `Mirror` for every object it visits. Nil when either source is unavailable or
/// they disagree; the walk then falls back to `Mirror`.
struct FieldLayout {
    struct Field {
        /// As people read it: lazy storage under the property's name.
        let name: String
        let offset: Int
        let type: Any.Type

        /// A copy of the field's value (retained, as `Mirror` would), boxed.
        func load(from instance: UnsafeRawPointer) -> Any {
            func copy<Value>(_: Value.Type) -> Any {
                (instance + offset).assumingMemoryBound(to: Value.self).pointee
            }
            return _openExistential(type, do: copy)
        }
    }

    let fields: [Field]

    /// `~Copyable` fields whose type the runtime does not build (it shows them as `()`): their
    /// bytes, read word by word for live objects, as edges of kind `unknown`.
    struct OpaqueRange {
        let name: String
        let offset: Int
        let size: Int
        /// When the range is a `Mutex` of a standard collection, declared so: the one word at
        /// `offset` is the collection's storage, of this type (`Swift._DictionaryStorage<`), and a
        /// strong reference. Nil for a range of unknown words.
        var collectionStorage: String?
    }

    /// `Mutex<Value>` (Synchronization) with a standard collection for `Value`, from the field's
    /// declared mangling: where the collection's word lies in the mutex (`Platform.mutexValueOffset`)
    /// and its storage's type.
    private static func mutexCollection(_ mangling: String) -> (offset: Int, storage: String)? {
        let mutex = "15Synchronization5MutexVy"
        guard mangling.hasPrefix(mutex), mangling.hasSuffix("G") else { return nil }
        guard let offset = Platform.mutexValueOffset else { return nil }
        let value = mangling.dropFirst(mutex.count)
        if value.hasPrefix("SD") { return (offset, "Swift._DictionaryStorage<") }
        if value.hasPrefix("Sa") { return (offset, "Swift._ContiguousArrayStorage<") }
        if value.hasPrefix("Sh") { return (offset, "Swift._SetStorage<") }
        return nil
    }

    private(set) var opaqueRanges: [OpaqueRange] = []

    /// `_EachFieldOptions.classType` (raw value 1), which the standard library declares as a
    /// mutable static and strict concurrency therefore refuses to read.
    private static let classType = _EachFieldOptions(rawValue: 1)

    init?(_ type: AnyObject.Type) {
        guard #available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *) else { return nil }
        // Ownership, level by level, the root class first: the order `_forEachField` lists them.
        var levels: [AnyClass] = []
        var level: AnyClass? = type
        while let current = level {
            levels.append(current)
            level = _getSuperclass(current)
        }
        var ownership: [TypeMetadata.StoredField] = []
        for current in levels.reversed() {
            guard let stored = TypeMetadata.storedFields(of: current) else { return nil }
            ownership += stored
        }
        self.init(type, options: Self.classType, ownership: ownership, nesting: 0)
    }

    /// Where the stored field `name` of `type` itself (a class's, not its superclass's) lies in
    /// an instance or value, from the runtime's field metadata.
    static func offset(ofField name: String, in type: Any.Type) -> Int? {
        guard #available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *) else { return nil }
        var offset: Int?
        let options: _EachFieldOptions = TypeMetadata.kind(of: type) == .class ? classType : []
        _ = _forEachField(of: type, options: options) { fieldName, fieldOffset, _, _ in
            if String(cString: fieldName) == name { offset = fieldOffset }
            return offset == nil
        }
        return offset
    }

    /// The stored fields of a struct.
    init?(struct type: Any.Type) {
        guard #available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *) else { return nil }
        self.init(struct: type, nesting: 0)
    }

    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    private init?(struct type: Any.Type, nesting: Int) {
        guard TypeMetadata.kind(of: type) == .struct, let ownership = TypeMetadata.storedFields(of: type) else { return nil }
        self.init(type, options: [], ownership: ownership, nesting: nesting)
    }

    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    private init?(
        _ type: Any.Type, options: _EachFieldOptions, ownership: [TypeMetadata.StoredField], nesting: Int
    ) {
        var listed: [(name: String, offset: Int, type: Any.Type)] = []
        let complete = _forEachField(of: type, options: options) { name, offset, fieldType, _ in
            listed.append((String(cString: name), offset, fieldType))
            return true
        }
        guard complete, listed.count == ownership.count else { return nil }
        var fields: [Field] = []
        var opaque: [OpaqueRange] = []
        for (field, held) in zip(listed, ownership) {
            guard field.name == held.name else { return nil }
            guard held.ownership == .strong else { continue }
            // Reflection shows a `~Copyable` field (a `Mutex`) as `()`: its own fields, read in
            // place, are what it holds.
            if ObjectIdentifier(field.type) == ObjectIdentifier(Void.self), held.typeName.plain != Array("yt".utf8), nesting < 4 {
                if let inner = Self.fieldsInPlace(of: held.typeName, in: type, named: field.name, at: field.offset, nesting: nesting) {
                    fields += inner
                } else if let mangling = TypeMetadata.noncopyableFieldMangling(held.typeName),
                          let mutex = Self.mutexCollection(mangling) {
                    opaque.append(OpaqueRange(name: RetainPathNames.property(field.name), offset: field.offset + mutex.offset,
                                              size: MemoryLayout<UInt>.size, collectionStorage: mutex.storage))
                } else {
                    let end = listed.map(\.offset).filter { $0 > field.offset }.min() ?? Self.size(of: type)
                    if end > field.offset {
                        opaque.append(OpaqueRange(name: RetainPathNames.property(field.name), offset: field.offset, size: end - field.offset))
                    }
                }
                continue
            }
            let role = ValueRole(field.type)
            guard role != .plain, role == .object || TypeMetadata.isCopyable(field.type) else { continue }
            fields.append(Field(name: RetainPathNames.property(field.name), offset: field.offset, type: field.type))
        }
        self.fields = fields
        self.opaqueRanges = opaque
    }

    /// The size of a struct, or of a Swift class's instances (class metadata without Objective-C
    /// interop: kind, superclass, flags, instance address point, then instance size).
    private static func size(of type: Any.Type) -> Int {
        guard TypeMetadata.kind(of: type) == .class else { return TypeMetadata.layout(of: type).size }
        if Platform.hasObjectiveCInterop { return 0 }
        return Int(TypeMetadata.metadataPointer(type).load(fromByteOffset: 24, as: UInt32.self))
    }

    /// The copyable fields inside a `~Copyable` struct field, each under the field's own name.
    @available(macOS 10.15, iOS 13, tvOS 13, watchOS 6, *)
    private static func fieldsInPlace(
        of typeName: MangledName, in container: Any.Type, named name: String, at offset: Int, nesting: Int
    ) -> [Field]? {
        let metadata = TypeMetadata.metadataPointer(container)
        // A struct's generic arguments follow its kind and descriptor words; a class's are found
        // elsewhere, so only non-generic classes resolve here.
        let arguments = TypeMetadata.kind(of: container) == .struct ? metadata + 2 * MemoryLayout<UInt>.size : nil
        guard let type = typeName.resolved(context: TypeMetadata.nominalDescriptor(of: container), arguments: arguments),
              ObjectIdentifier(type) != ObjectIdentifier(Void.self) else { return nil }
        // `Mutex`'s storage, `_Cell<Value>`, has no fields: it is laid out like its `Value`.
        if let value = TypeMetadata.cellValueType(of: type) {
            guard TypeMetadata.isCopyable(value), ValueRole(value) != .plain else { return [] }
            return [Field(name: RetainPathNames.property(name), offset: offset, type: value)]
        }
        guard let inner = FieldLayout(struct: type, nesting: nesting + 1) else { return nil }
        return inner.fields.map { Field(name: RetainPathNames.property(name), offset: offset + $0.offset, type: $0.type) }
    }
}
