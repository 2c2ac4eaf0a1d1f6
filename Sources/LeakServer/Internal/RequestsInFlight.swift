import Synchronization

/// How many requests have arrived and not yet been answered: shutdown waits for it to reach
/// zero, and `/metrics` reports it.
final class RequestsInFlight: Sendable {
    private let value = Atomic<Int>(0)

    var count: Int { value.load(ordering: .sequentiallyConsistent) }
    func began() { value.add(1, ordering: .sequentiallyConsistent) }
    func ended() { value.subtract(1, ordering: .sequentiallyConsistent) }
}
