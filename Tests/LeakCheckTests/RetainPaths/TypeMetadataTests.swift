import Testing
@testable import LeakCheck
@testable import LeakRuntime

@Suite("Type metadata")
struct TypeMetadataTests {
    final class Fields {
        weak var weakField: Fields?
        unowned var unownedField: Fields
        unowned(unsafe) var unsafeField: Fields
        var strongField: Fields?
        weak var weakExistential: AnyObject?
        lazy var closure: () -> Void = {}
        // Only the type's metadata is read; no instance is made.
        init(other: Fields) {
            unownedField = other
            unsafeField = other
        }
    }

    struct Generic<Value> {
        weak var owner: Fields?
        var value: Value
    }

    @Test func classFieldOwnership() throws {
        let fields = try #require(TypeMetadata.storedFields(of: Fields.self))
        #expect(fields.map(\.name) == [
            "weakField", "unownedField", "unsafeField", "strongField", "weakExistential", "$__lazy_storage_$_closure",
        ])
        #expect(fields.map(\.ownership) == [.weak, .unowned, .unownedUnsafe, .strong, .weak, .strong])
    }

    @Test func genericStructFieldOwnership() throws {
        let fields = try #require(TypeMetadata.storedFields(of: Generic<[Int]>.self))
        #expect(fields.map(\.name) == ["owner", "value"])
        #expect(fields.map(\.ownership) == [.weak, .strong])
    }

    @Test func unreadableKindsAreNil() {
        #expect(TypeMetadata.storedFields(of: (Int, String).self) == nil)
        #expect(TypeMetadata.storedFields(of: Optional<Int>.self) == nil)
        #expect(TypeMetadata.storedFields(of: (() -> Void).self) == nil)
    }

    @Test func kinds() {
        #expect(TypeMetadata.kind(of: Fields.self) == .class)
        #expect(TypeMetadata.kind(of: Generic<Int>.self) == .struct)
        #expect(TypeMetadata.kind(of: Optional<Int>.self) == .optional)
        #expect(TypeMetadata.kind(of: (Int, Int).self) == .tuple)
        #expect(TypeMetadata.kind(of: (() -> Void).self) == .function)
        #expect(TypeMetadata.kind(of: (any Sendable).self) == .existential)
    }

    @Test func copyable() {
        #expect(TypeMetadata.isCopyable(Int.self))
        #expect(TypeMetadata.isCopyable([Fields].self))
        // A `~Copyable` metatype cannot even be passed as `Any.Type`; the layout test below
        // shows a `Mutex` field left out.
    }

    @Test func classLayoutLeavesOutWeakUnownedAndPlainFields() throws {
        let layout = try #require(FieldLayout(Fields.self))
        #expect(layout.fields.map(\.name) == ["strongField", "closure"])
        #expect(try #require(FieldLayout(GuardedState.self)).fields.map(\.name) == ["other"])
    }

    @Test func plainData() {
        #expect(TypeMetadata.isPlainData(Int.self))
        #expect(TypeMetadata.isPlainData((Double, Bool).self))
        #expect(!TypeMetadata.isPlainData(String.self))
        #expect(!TypeMetadata.isPlainData([Int].self))
        #expect(!TypeMetadata.isPlainData(Generic<Int>.self))
    }
}
