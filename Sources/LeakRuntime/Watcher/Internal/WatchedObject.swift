import Dispatch

/// One watched object. Its mutable parts change only under the watcher's state lock.
final class WatchedObject {
    let reference: WeakObject
    let typeIdentifier: ObjectIdentifier
    /// Module-qualified.
    let typeName: String
    let name: String?
    /// Where `watch` was called.
    let location: CallerLocation
    let watchedAt: UInt64
    var strikes = 0
    var reported = false
    var ignored = false
    var fingerprint: String?
    /// Whether the configuration's allowlist names the type; worked out at the first check.
    var allowlisted: Bool?

    init(_ object: AnyObject, name: String?, location: CallerLocation) {
        reference = WeakObject(object)
        typeIdentifier = ObjectIdentifier(type(of: object))
        typeName = String(reflecting: type(of: object))
        self.name = name
        self.location = location
        watchedAt = DispatchTime.now().uptimeNanoseconds
    }

    var scenario: String { name ?? "LeakWatcher/" + RetainPathNames.short(typeName) }

    func millisecondsWatched(at now: UInt64) -> Double {
        Double(now &- watchedAt) / 1_000_000
    }
}
