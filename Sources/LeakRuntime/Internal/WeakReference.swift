/// A weak reference to an object under check, with what reports need to say about it.
///
/// `@unchecked Sendable`: the box is written once, at creation; afterwards only the weak
/// reference's nil-ness is read across tasks, which the Swift runtime makes atomic.
package final class WeakReference: @unchecked Sendable {
    package weak var object: AnyObject?
    /// `String(reflecting:)` of the object's dynamic type, taken while it was alive.
    package let typeName: String

    package init(_ object: AnyObject) {
        self.object = object
        self.typeName = String(reflecting: Swift.type(of: object))
    }

    package var isReleased: Bool { object == nil }
}
