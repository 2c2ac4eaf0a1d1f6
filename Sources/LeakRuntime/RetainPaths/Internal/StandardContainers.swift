// The standard library's containers, opened without building a `Mirror` for each: the walk
// meets them in almost every object.

/// `Optional`, opened without a mirror.
protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? { map { $0 } }
}

/// Arrays and sets, walked without a mirror.
protocol ElementSequence {
    static var elementType: Any.Type { get }
    func forEachElement(_ body: (Any) -> Void)
}

extension ElementSequence where Self: Sequence {
    static var elementType: Any.Type { Element.self }
}

extension Array: ElementSequence {
    func forEachElement(_ body: (Any) -> Void) { for element in self { body(element) } }
}

extension ContiguousArray: ElementSequence {
    func forEachElement(_ body: (Any) -> Void) { for element in self { body(element) } }
}

extension ArraySlice: ElementSequence {
    func forEachElement(_ body: (Any) -> Void) { for element in self { body(element) } }
}

extension Set: ElementSequence {
    func forEachElement(_ body: (Any) -> Void) { for element in self { body(element) } }
}

/// Dictionaries, walked without a mirror.
protocol KeyValueSequence {
    func forEachPair(_ body: (Any, Any) -> Void)
}

extension Dictionary: KeyValueSequence {
    func forEachPair(_ body: (Any, Any) -> Void) { for (key, value) in self { body(key, value) } }
}
