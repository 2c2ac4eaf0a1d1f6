import Synchronization

/// The tokens a store found live lately, by the SHA-256 of the token (the text the database
/// keeps, never the token itself): what lets the server admit an upload's body on its headers
/// without a database read on an I/O thread (`LeakStore.rememberedToken`).
///
/// Only live verdicts are kept, each for `lifetime` after the store last read it from the
/// database; any other verdict for the same token, and a revoke through this store, drops it at
/// once. A revoke can run while a read that found the token live is still on its way: every
/// revoke moves `generation` on, and a verdict read under an older generation is not kept.
/// At most `capacity` entries: a full memory first drops what has expired, then forgets
/// everything (it only ever costs a database read).
final class TokenMemory: Sendable {
    struct Live: Sendable, Equatable {
        var id: Int64
        var project: String
        var scope: TokenScope
    }

    private struct State {
        var entries: [String: (live: Live, until: ContinuousClock.Instant)] = [:]
        var generation: UInt64 = 0
    }

    /// Nil or zero: nothing is remembered.
    let lifetime: Duration?
    let capacity: Int
    private let state = Mutex(State())

    init(lifetime: Duration?, capacity: Int = StoreTuning.tokensKept) {
        self.lifetime = lifetime.flatMap { $0 > .zero ? $0 : nil }
        self.capacity = max(1, capacity)
    }

    /// Read before the database is asked, handed back to `remember`.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// The live token whose SHA-256 is `hash`, unless its entry has expired (it is then dropped).
    func recall(hash: String) -> Live? {
        guard lifetime != nil else { return nil }
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let entry = state.entries[hash] else { return nil }
            guard now < entry.until else {
                state.entries[hash] = nil
                return nil
            }
            return entry.live
        }
    }

    /// Keeps `live` for `lifetime` from now, unless a revoke came after `generation` was read.
    func remember(hash: String, _ live: Live, generation: UInt64) {
        guard let lifetime else { return }
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries[hash] == nil, state.entries.count >= capacity {
                state.entries = state.entries.filter { now < $0.value.until }
                if state.entries.count >= capacity { state.entries.removeAll() }
            }
            state.entries[hash] = (live, now + lifetime)
        }
    }

    /// Drops the token whose SHA-256 is `hash`: the store found it revoked or unknown.
    func forget(hash: String) {
        state.withLock { state in _ = state.entries.removeValue(forKey: hash) }
    }

    /// Drops token `id`: it is being revoked.
    func forget(id: Int64) {
        state.withLock { state in
            state.generation &+= 1
            state.entries = state.entries.filter { $0.value.live.id != id }
        }
    }
}
