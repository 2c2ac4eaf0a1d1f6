/// A weak reference that remembers whom it pointed at.
struct WeakObject {
    weak var object: AnyObject?
    let identifier: ObjectIdentifier

    init(_ object: AnyObject) {
        self.object = object
        self.identifier = ObjectIdentifier(object)
    }
}
