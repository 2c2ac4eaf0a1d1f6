/// What a database engine gives the store: consistent snapshots to read and transactions to
/// write, with the engine's own failures already turned into `LeakStoreError` (`.busy`,
/// `.full`, `.unavailable`). The store's queries are written once, against `SQLConnection`.
protocol StoreEngine: Sendable {
    /// Where the data lives, for messages: a file path or a `postgres://` URL without its password.
    var location: String { get }
    /// Runs `body` in one read-only transaction: every statement sees the same snapshot.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T
    /// Runs `body` in one write transaction, committed when it returns and rolled back when it
    /// throws. An engine whose writers can race (several servers on PostgreSQL) runs `body`
    /// again after losing a race, so `body` must read what it depends on. `cost` says about how
    /// many checks' worth of work `body` is (`LeakStore.write`), for an engine that groups writes.
    func write<T>(cost: Int, _ body: (WriteSession) throws -> T) throws -> T
    /// Queues `body` as `write` would run it and returns; `completion` hears nil once its
    /// transaction has committed, or the error that failed it. An engine with a writer thread
    /// (SQLite) answers from it, so the caller's thread is free meanwhile; any other runs
    /// `write` on the calling thread (the default).
    func writeDetached(cost: Int, _ body: @escaping @Sendable (WriteSession) throws -> Void,
                       completion: @escaping @Sendable ((any Error)?) -> Void)
    /// The bytes the database occupies, when the engine can tell.
    func sizeOnDisk() -> Int64?
    /// Called once at shutdown: SQLite checkpoints its write-ahead log, PostgreSQL closes its pool.
    func close() throws
    /// Copies SQLite's write-ahead log into the main file, the store staying open (the size the
    /// benchmarks measure); nothing where there is none.
    func checkpoint() throws
}

extension StoreEngine {
    func writeDetached(cost: Int, _ body: @escaping @Sendable (WriteSession) throws -> Void,
                       completion: @escaping @Sendable ((any Error)?) -> Void) {
        do {
            try write(cost: cost, body)
            completion(nil)
        } catch {
            completion(error)
        }
    }
}

/// A write connection and the names it has interned, which stay valid between transactions
/// (interned rows are never deleted). A rolled-back transaction forgets them, since the rows
/// may not exist. The session owns the one bound on what it keeps: a transaction that starts
/// with more than `internedLimit` ids kept starts with none, and interns what it needs again.
package final class WriteSession: @unchecked Sendable {
    package let connection: any SQLConnection
    var typeIDs: [String: Int64] = [:]
    var scenarioIDs: [String: Int64] = [:]
    /// Ids of other interned names, by table (`environments`).
    var internedNames: [String: [String: Int64]] = [:]
    var siteIDs: [CheckSite: Int64] = [:]
    /// Leak keys as `leak_keys` holds them.
    var keyIDs: [KeyIDs: InternedKey] = [:]
    /// About how many packed key states are not settled yet (`StateBlobs.settleIfDue`); nil when
    /// not known (at the start, and after a transaction failed).
    var unsettledStates: Int?

    /// How many ids (names, sites and keys together) the session keeps from one transaction to
    /// the next (`StoreOptions.internedLimit`). Past it, the next transaction starts with none and
    /// reads its run's names and keys again: statements by the run's names, never by the cache.
    let internedLimit: Int

    init(_ connection: any SQLConnection, internedLimit: Int = StoreOptions().internedLimit) {
        self.connection = connection
        self.internedLimit = internedLimit
    }

    /// The ids this session keeps.
    var internedCount: Int {
        typeIDs.count + scenarioIDs.count + internedNames.values.reduce(0) { $0 + $1.count } + siteIDs.count + keyIDs.count
    }

    /// Runs `transaction`, one write transaction on `connection` (begun and committed inside it),
    /// with what this session has interned: none of it when it has grown past `internedLimit`,
    /// and none of it is kept when the transaction fails.
    func transaction<T>(_ transaction: (WriteSession) throws -> T) throws -> T {
        if internedCount > internedLimit { forgetInterned() }
        do {
            return try transaction(self)
        } catch {
            forgetInterned()
            unsettledStates = nil
            throw error
        }
    }

    /// Interns the scenario and type names this session does not know yet, each list in sorted
    /// order, so that two servers storing runs with the same names lock rows in the same order.
    /// The cost is in the run's names, not in the cache: a name is looked up, never the cache
    /// walked.
    func intern(scenarios: some Sequence<String>, types: some Sequence<String>) throws {
        let newScenarios = Set(scenarios.lazy.filter { self.scenarioIDs[$0] == nil }).sorted()
        if !newScenarios.isEmpty {
            scenarioIDs.merge(try connection.intern(newScenarios, in: "scenarios")) { known, _ in known }
        }
        let newTypes = Set(types.lazy.filter { self.typeIDs[$0] == nil }).sorted()
        if !newTypes.isEmpty {
            typeIDs.merge(try connection.intern(newTypes, in: "types")) { known, _ in known }
        }
    }

    func forgetInterned() {
        typeIDs.removeAll()
        scenarioIDs.removeAll()
        internedNames.removeAll()
        siteIDs.removeAll()
        keyIDs.removeAll()
    }
}
