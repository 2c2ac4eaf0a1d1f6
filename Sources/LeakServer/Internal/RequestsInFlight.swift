import Synchronization

/// How many requests have arrived and not yet been answered: shutdown waits for it to reach
/// zero, and `/metrics` reports it.
final class RequestsInFlight: Sendable {
    private let value = Atomic<Int>(0)

    var count: Int { value.load(ordering: .sequentiallyConsistent) }
    func began() { value.add(1, ordering: .sequentiallyConsistent) }
    func ended() { value.subtract(1, ordering: .sequentiallyConsistent) }
}

/// Requests and connections the HTTP layer refused or cut before a handler saw them, for
/// `/metrics`: a rising count says the server is under more load (or attack) than it admits.
final class HTTPRefusals: Sendable {
    private let overloadedCount = Atomic<Int>(0)
    private let deadlineCount = Atomic<Int>(0)
    private let gaveWayCount = Atomic<Int>(0)

    /// 503s for a full worker queue, a busy client, a client with every connection slot taken, or
    /// the unread-answer budget.
    var overloaded: Int { overloadedCount.load(ordering: .relaxed) }
    /// Connections shut down for not delivering a request within its deadline.
    var deadlineCutOffs: Int { deadlineCount.load(ordering: .relaxed) }
    /// Stalled connections (no request headers) shut down to make room for a new one from their address.
    var stalledGaveWay: Int { gaveWayCount.load(ordering: .relaxed) }

    func refusedOverloaded() { overloadedCount.add(1, ordering: .relaxed) }
    func cutOffPastDeadline() { deadlineCount.add(1, ordering: .relaxed) }
    func gaveWay() { gaveWayCount.add(1, ordering: .relaxed) }

}
