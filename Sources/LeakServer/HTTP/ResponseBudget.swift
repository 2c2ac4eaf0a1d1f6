import Synchronization

/// Bounds the memory held by answers that clients have not read yet: a client that requests a
/// large page and never reads it keeps that page in memory until its connection times out.
/// Past `perClient` bytes unsent to one client (`ClientKey`), or `total` to all, new requests are
/// answered 503.
final class ResponseBudget: Sendable {
    let perClient: Int
    let total: Int
    private let state = Mutex<(byClient: [ClientKey: Int], total: Int)>(([:], 0))

    init(perClient: Int, total: Int) {
        self.perClient = perClient
        self.total = total
    }

    /// Whether `client` may be given another answer now.
    func admits(_ client: ClientKey) -> Bool {
        state.withLock { $0.total < total && $0.byClient[client, default: 0] < perClient }
    }

    func charge(_ client: ClientKey, _ bytes: Int) {
        state.withLock {
            $0.total += bytes
            $0.byClient[client, default: 0] += bytes
        }
    }

    func release(_ client: ClientKey, _ bytes: Int) {
        state.withLock {
            $0.total -= bytes
            let left = $0.byClient[client, default: bytes] - bytes
            $0.byClient[client] = left > 0 ? left : nil
        }
    }

    var unsentBytes: Int { state.withLock { $0.total } }
}
