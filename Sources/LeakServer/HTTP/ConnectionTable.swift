import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Every open connection, and the two rules that bound what clients hold with them.
///
/// **A deadline for each request.** libmicrohttpd's own timeout is an idle timeout, reset by
/// every byte: a client sending one byte a second holds a connection forever. Here each
/// connection's clock starts when it opens, or when the answer to its previous request is sent,
/// and stops when the request is read in full; a sweep shuts down the socket of any connection
/// past the deadline, and libmicrohttpd then closes it as it would any connection the peer dropped.
///
/// **Connections per client** (`limit`), counted by `ClientKey` — a token a request showed with
/// its client's address, else that address (behind a trusted proxy, the real client's, from the
/// forwarded header):
/// - A request's headers take a slot of its key, held by the connection until it closes or its
///   next request moves it to another key. With `limit` slots of the key taken, the request is
///   answered 503 with `Retry-After` (`requestArrived` returns false); no connection is ever
///   refused before it could say who it is.
/// - A connection straight from a client (not a trusted proxy) also counts against its address
///   while open. When it makes that more than `limit`, the address's oldest connection that has
///   sent no request headers for `stallAfter` gives way (its socket is shut down), so that a
///   stalled connection cannot keep a live one out.
/// - A trusted proxy's connections count against nothing between requests: the proxy carries
///   many clients' requests, each counted against its own client.
final class ConnectionTable: Sendable {
    private struct Entry {
        var socket: Int32
        var opened: ContinuousClock.Instant
        /// When the deadline clock of the request being received started.
        var since: ContinuousClock.Instant
        var receiving = true
        /// Headers of a request arrived on it: a client that talks, not a stall.
        var headersSeen = false
        /// The peer, for a connection straight from a client; nil for a trusted proxy's.
        var address: ClientAddress?
        /// The key whose slot the connection holds.
        var slot: ClientKey?
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        /// Open connections straight from each address.
        var open: [ClientAddress: Int] = [:]
        /// Each address's connections in the order they opened, while they may stall: an entry
        /// stays until a `makeRoom` looks at it and finds its connection gone or talking.
        var waiting: [ClientAddress: [(connection: Int, opened: ContinuousClock.Instant)]] = [:]
        /// Slots taken, by key.
        var slots: [ClientKey: Int] = [:]
    }

    let deadline: Duration
    let limit: Int
    /// A connection that has sent no request headers for this long has stalled and may give way
    /// to a new one from its address: a client sends its headers as soon as it is connected, and
    /// a connection this old without them is an attack or a client that left.
    static let stallAfter: Duration = .seconds(1)
    private let refusals: HTTPRefusals
    private let state = Mutex(State())
    private let running = Atomic<Bool>(false)

    init(deadline: Duration, limit: Int, refusals: HTTPRefusals) {
        self.deadline = deadline
        self.limit = limit
        self.refusals = refusals
    }

    private static func key(_ connection: OpaquePointer) -> Int { Int(bitPattern: UnsafeRawPointer(connection)) }

    /// A connection opened. `address`: its peer when that is a client, nil for a trusted proxy.
    func opened(_ connection: OpaquePointer, socket: Int32, address: ClientAddress?, now: ContinuousClock.Instant = .now) {
        let id = Self.key(connection)
        state.withLock { state in
            state.entries[id] = Entry(socket: socket, opened: now, since: now, address: address)
            guard let address else { return }
            state.open[address, default: 0] += 1
            state.waiting[address, default: []].append((id, now))
            if state.open[address, default: 0] > limit { makeRoom(for: address, in: &state, now: now) }
        }
    }

    /// A request's headers arrived: the connection takes a slot of `key` (keeping the one it
    /// holds when that is `key`'s already). False when `key` has no slot free: answer 503.
    func requestArrived(_ connection: OpaquePointer, key: ClientKey) -> Bool {
        let id = Self.key(connection)
        return state.withLock { state in
            guard var entry = state.entries[id] else { return true }
            entry.headersSeen = true
            defer { state.entries[id] = entry }
            if entry.slot == key { return true }
            guard state.slots[key, default: 0] < limit else { return false }
            if let held = entry.slot { release(held, in: &state) }
            state.slots[key, default: 0] += 1
            entry.slot = key
            return true
        }
    }

    /// The request is read in full: its handler's time does not count.
    func received(_ connection: OpaquePointer) {
        state.withLock { $0.entries[Self.key(connection)]?.receiving = false }
    }

    /// The answer is sent: the clock restarts for the next request on the connection, and a
    /// trusted proxy's connection gives its slot back (its next request may be anyone's).
    func answered(_ connection: OpaquePointer) {
        let id = Self.key(connection)
        state.withLock { state in
            guard var entry = state.entries[id] else { return }
            entry.receiving = true
            entry.since = .now
            if entry.address == nil, let held = entry.slot {
                release(held, in: &state)
                entry.slot = nil
            }
            state.entries[id] = entry
        }
    }

    /// libmicrohttpd notifies this before it closes the socket, so a sweep never touches a socket
    /// number that has been closed (and perhaps reused).
    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: Self.key(connection)) else { return }
            if let held = entry.slot { release(held, in: &state) }
            if let address = entry.address {
                let left = state.open[address, default: 1] - 1
                state.open[address] = left > 0 ? left : nil
                if left == 0 { state.waiting[address] = nil }
            }
        }
    }

    /// Slots taken by `key`, for tests and `/metrics`.
    func slots(of key: ClientKey) -> Int { state.withLock { $0.slots[key, default: 0] } }

    /// Connections open straight from `address`.
    func openConnections(from address: ClientAddress) -> Int { state.withLock { $0.open[address, default: 0] } }

    private func release(_ key: ClientKey, in state: inout State) {
        let left = state.slots[key, default: 1] - 1
        state.slots[key] = left > 0 ? left : nil
    }

    /// Shuts down the oldest of `address`'s connections that has sent no headers for
    /// `stallAfter`, if there is one. Entries that can no longer stall are dropped on the way.
    private func makeRoom(for address: ClientAddress, in state: inout State, now: ContinuousClock.Instant) {
        guard var queue = state.waiting[address] else { return }
        var index = 0
        defer {
            queue.removeFirst(index)
            state.waiting[address] = queue.isEmpty ? nil : queue
        }
        while index < queue.count {
            let (id, opened) = queue[index]
            guard let entry = state.entries[id], entry.opened == opened, !entry.headersSeen, entry.receiving else {
                index += 1
                continue
            }
            guard now - opened >= Self.stallAfter else { return }
            index += 1
            shutdown(entry.socket, Int32(SHUT_RDWR))
            state.entries[id]?.receiving = false
            refusals.gaveWay()
            return
        }
    }

    /// Sweeps every `interval` on a thread of its own until `stop()`.
    func start(interval: Duration = .milliseconds(200)) {
        running.store(true, ordering: .sequentiallyConsistent)
        let thread = Thread { [self] in
            while running.load(ordering: .sequentiallyConsistent) {
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18
                    + Double(interval.components.seconds))
                sweep()
            }
        }
        thread.name = "leakhistory-deadlines"
        thread.start()
    }

    func stop() { running.store(false, ordering: .sequentiallyConsistent) }

    /// Shuts down the socket of every connection that has been receiving one request for longer
    /// than the deadline. The lock is held across `shutdown`, so `closed` cannot race it.
    func sweep(now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            for (key, entry) in state.entries where entry.receiving && now - entry.since > deadline {
                shutdown(entry.socket, Int32(SHUT_RDWR))
                state.entries[key]?.receiving = false
                refusals.cutOffPastDeadline()
            }
        }
    }
}
