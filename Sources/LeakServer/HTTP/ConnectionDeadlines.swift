import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A total deadline for receiving each request, headers and body together. libmicrohttpd's own
/// timeout is an idle timeout, reset by every byte: a client sending one byte a second holds a
/// connection forever. Here each connection's clock starts when it opens, or when the answer to
/// its previous request is sent, and stops when the request is read in full; a sweep shuts down
/// the socket of any connection past the deadline, and libmicrohttpd then closes it as it would
/// any connection the peer dropped.
final class ConnectionDeadlines: Sendable {
    private struct Entry {
        var socket: Int32
        var since: ContinuousClock.Instant
        var receiving: Bool
    }

    let deadline: Duration
    private let refusals: HTTPRefusals
    private let entries = Mutex<[Int: Entry]>([:])
    private let running = Atomic<Bool>(false)

    init(deadline: Duration, refusals: HTTPRefusals) {
        self.deadline = deadline
        self.refusals = refusals
    }

    func opened(_ connection: OpaquePointer, socket: Int32) {
        let entry = Entry(socket: socket, since: .now, receiving: true)
        entries.withLock { $0[Int(bitPattern: UnsafeRawPointer(connection))] = entry }
    }

    /// The request is read in full: its handler's time does not count.
    func received(_ connection: OpaquePointer) {
        entries.withLock { $0[Int(bitPattern: UnsafeRawPointer(connection))]?.receiving = false }
    }

    /// The answer is sent: the clock restarts for the next request on the connection.
    func answered(_ connection: OpaquePointer) {
        entries.withLock {
            $0[Int(bitPattern: UnsafeRawPointer(connection))]?.receiving = true
            $0[Int(bitPattern: UnsafeRawPointer(connection))]?.since = .now
        }
    }

    /// libmicrohttpd notifies this before it closes the socket, so a sweep never touches a socket
    /// number that has been closed (and perhaps reused).
    func closed(_ connection: OpaquePointer) {
        _ = entries.withLock { $0.removeValue(forKey: Int(bitPattern: UnsafeRawPointer(connection))) }
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
        entries.withLock { entries in
            for (key, entry) in entries where entry.receiving && now - entry.since > deadline {
                shutdown(entry.socket, Int32(SHUT_RDWR))
                entries[key]?.receiving = false
                refusals.cutOffPastDeadline()
            }
        }
    }
}

/// Bounds the memory held by answers that clients have not read yet: a client that requests a
/// large page and never reads it keeps that page in memory until its connection times out.
/// Past `perClient` bytes unsent to one client, or `total` to all, new requests are answered 503.
final class ResponseBudget: Sendable {
    let perClient: Int
    let total: Int
    private let state = Mutex<(byClient: [UInt32: Int], total: Int)>(([:], 0))

    init(perClient: Int, total: Int) {
        self.perClient = perClient
        self.total = total
    }

    /// Whether `client` may be given another answer now.
    func admits(_ client: UInt32) -> Bool {
        state.withLock { $0.total < total && $0.byClient[client, default: 0] < perClient }
    }

    func charge(_ client: UInt32, _ bytes: Int) {
        state.withLock {
            $0.total += bytes
            $0.byClient[client, default: 0] += bytes
        }
    }

    func release(_ client: UInt32, _ bytes: Int) {
        state.withLock {
            $0.total -= bytes
            let left = $0.byClient[client, default: bytes] - bytes
            $0.byClient[client] = left > 0 ? left : nil
        }
    }

    var unsentBytes: Int { state.withLock { $0.total } }
}
