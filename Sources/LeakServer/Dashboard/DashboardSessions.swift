import Foundation
import LeakStore
import Synchronization

/// Browser sessions for the dashboard when the server requires read tokens: the login form
/// exchanges a token for a random cookie (HttpOnly, SameSite=Strict). The server keeps only the
/// cookie's SHA-256 and the token's id, so a leaked memory dump or log holds no usable secret,
/// and every use re-checks the token: revoking it ends its sessions. A session only ever reads
/// (write routes take `Authorization: Bearer` alone) and lives `lifetime`, or until restart.
final class DashboardSessions: Sendable {
    static let cookieName = "leakhistory_session"
    let lifetime: Duration
    /// Sessions kept at most; the oldest go first.
    let capacity: Int
    private struct Entry {
        var tokenID: Int64
        var expires: ContinuousClock.Instant
    }
    private let entries = Mutex<[String: Entry]>([:])

    init(lifetime: Duration = .seconds(12 * 3600), capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// A new session for token `tokenID`: the cookie value to hand to the browser.
    func create(tokenID: Int64) -> String {
        let secret = SHA256.hexString(SHA256.randomBytes(32))
        let now = ContinuousClock.now
        entries.withLock { entries in
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                if entries.count >= capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                    entries[oldest.key] = nil
                }
            }
            entries[SHA256.hex(secret)] = Entry(tokenID: tokenID, expires: now + lifetime)
        }
        return secret
    }

    /// The token behind a cookie, as a read credential: unknown when the session is not known or
    /// has expired, revoked when its token was.
    func verify(_ cookie: String, store: any LeakStorage) throws -> TokenVerdict {
        let key = SHA256.hex(cookie)
        let now = ContinuousClock.now
        let entry = entries.withLock { entries -> Entry? in
            guard let entry = entries[key] else { return nil }
            guard entry.expires > now else { entries[key] = nil; return nil }
            return entry
        }
        guard let entry else { return .unknown }
        switch try store.verifyToken(id: entry.tokenID) {
        case let .valid(id, project, _): return .valid(id: id, project: project, scope: .read)
        case let verdict: return verdict
        }
    }

    func end(_ cookie: String) {
        _ = entries.withLock { $0.removeValue(forKey: SHA256.hex(cookie)) }
    }

    /// The session cookie's value in `request`, if it sent one.
    static func cookie(in request: Request) -> String? {
        guard let header = request.header("cookie") else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == cookieName {
                let value = pair[1].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }
}
