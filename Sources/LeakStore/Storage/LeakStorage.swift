import Foundation
import LeakReport

/// The storage boundary: everything the server and the dashboard ask of the database, in the
/// domain's terms. `LeakStore` implements it on SQLite and on PostgreSQL; nothing above it
/// sees an engine. Every read is one consistent snapshot; every write one transaction.
///
/// Failures are `LeakStoreError`: the domain's refusals (`.projectNotFound`,
/// `.runKeyConflict`, …) and the engine's trouble in three words a client can act on —
/// `.busy` and `.unavailable` (retry), `.full` (the operator must free space).
public protocol LeakStorage: Sendable {
    /// Where the data lives, for the start-up line and messages (never a password).
    var location: String { get }

    // MARK: Runs

    /// Stores one run and its checks; the same `runKey` with the same content returns the first
    /// run's receipt with `created == false` and stores nothing, even when several servers
    /// race on the key. With `credential`, its token is checked first, in the same transaction
    /// (as `verifyToken` would, and remembered or forgotten the same way).
    /// - Throws: `.projectNotFound`, `.runKeyConflict`; what `credential.authorize` throws.
    func ingest(_ run: RunRecord, contentHash: String?, credential: CredentialCheck?) throws -> IngestReceipt
    /// `ingest`, answered through `completion` instead of returning: a run stored in one
    /// transaction is answered from the engine's writer once committed (SQLite), so that the
    /// caller's thread is free while it waits; anything else is stored on the calling thread.
    func ingest(_ run: RunRecord, contentHash: String?, credential: CredentialCheck?,
                completion: @escaping @Sendable (Result<IngestReceipt, any Error>) -> Void)

    /// Resolves two revisions (ids, branch names, id prefixes), their merge-base along the
    /// uploaded parents, and the nearest ancestor of it with data, within `depth`.
    func compare(project: String, base: String, head: String, environment: String, depth: Int) throws -> RevisionComparison
    /// The index of the first candidate commit with a usable (non-suspect) run in the
    /// environment; nil when none has one.
    func resolveBase(project: String, environment: String, candidates: [String]) throws -> Int?
    /// Every leak key of the environment classified between two commits (`LeakDiff`).
    func diff(project: String, base: String?, head: String, environment: String, mergeBase: String?,
              after: String?, now: Date) throws -> CommitDiff
    /// Each type leaking at the branch's newest commit with data, sorted by name: at most
    /// `limit`, those after `after` (an earlier page's `next`).
    func leakingTypes(project: String, branch: String, environment: String, after: String?, limit: Int) throws -> LeakingTypes
    /// One type's leaks per commit along the branch, oldest first; each point's `fingerprints`
    /// left empty unless `fingerprints` (a chart draws none, and reading them visits checks).
    func trend(project: String, type: String, branch: String, environment: String, limit: Int,
               fingerprints: Bool) throws -> [TrendPoint]
    /// Several types' trends along the same commits (the dashboard's sparklines), by type.
    func trends(project: String, types: [String], branch: String, environment: String, limit: Int,
                fingerprints: Bool) throws -> [String: [TrendPoint]]
    /// The keys of `type` leaking at the branch head, with their most telling check.
    func typeLeaks(project: String, type: String, branch: String, environment: String, limit: Int) throws -> [TypeLeak]
    /// The newest runs, leaks, branches and environments of a project.
    func activity(project: String, limit: Int) throws -> ProjectActivity
    /// A commit with its runs and one page of their leaks (at most `limit`, after `cursor`);
    /// nil when nothing was uploaded for it.
    func commit(project: String, sha: String, limit: Int, cursor: CommitCursor?) throws -> CommitSummary?
    /// One scenario's keys and states per commit, oldest first: along `branch`'s first-parent
    /// line when given, else every commit of the project; the newest `limit` commits, or those
    /// older than `before` (an earlier page's `next`).
    func scenarioHistory(project: String, scenario: String, branch: String?, environment: String, limit: Int,
                         before: String?) throws -> ScenarioHistory

    // MARK: Retention

    /// Drops the full records of a batch of runs received before `cutoff`, after `afterRunID`;
    /// the per-key states stay. `lastRunID` nil: nothing left.
    func dropDetails(receivedBefore cutoff: Date, runs: Int, afterRunID: Int64) throws -> RetentionBatch
    /// Removes the uploads a server left half-stored when it died (received before `cutoff`);
    /// returns how many.
    func removeAbandonedUploads(receivedBefore cutoff: Date) throws -> Int

    // MARK: Suppressions

    func addSuppression(project: String, _ rule: LeakSuppression, now: Date) throws -> LeakSuppression
    /// At most `limit` of the project's suppressions, oldest first, those with ids above `after`.
    func suppressions(project: String, after: Int64?, limit: Int) throws -> [LeakSuppression]
    /// False when the project has no suppression `id`.
    func deleteSuppression(project: String, id: Int64) throws -> Bool

    // MARK: Projects and tokens

    /// Creates a project and its first write token. - Throws: `.projectExists`.
    func createProject(_ name: String) throws -> IssuedToken
    func projectExists(_ name: String) throws -> Bool
    /// Project names, sorted, at most `limit`.
    func projectNames(limit: Int) throws -> [String]
    func createToken(project: String, scope: TokenScope) throws -> IssuedToken
    func tokens(project: String) throws -> [TokenSummary]
    func revokeToken(id: Int64) throws
    /// Asks the database; a live token is remembered for `StoreOptions.tokenMemory`.
    func verifyToken(_ presented: String) throws -> TokenVerdict
    /// `.valid` when `verifyToken` found `presented` live lately, from memory alone (no database
    /// read: an I/O thread may ask); nil otherwise. A revoke through this store forgets at once;
    /// one elsewhere is seen at the next `verifyToken`, which the caller must still make before
    /// it acts on the request.
    func rememberedToken(_ presented: String) -> TokenVerdict?
    /// The state of token `id` now, for a credential derived from it earlier (a dashboard session).
    func verifyToken(id: Int64) throws -> TokenVerdict

    // MARK: Health

    /// Returns when the database answers a query; throws `.unavailable` (or `.busy`) otherwise.
    func checkHealth() throws
    func schemaVersion() throws -> Int
    /// The bytes the database occupies, when the engine can tell (SQLite).
    func sizeOnDisk() -> Int64?
    /// At shutdown, once no request is in flight.
    func close() throws
}

extension LeakStorage {
    public func ingest(_ run: RunRecord, contentHash: String? = nil) throws -> IngestReceipt {
        try ingest(run, contentHash: contentHash, credential: nil)
    }

    public func diff(project: String, base: String?, head: String, environment: String, mergeBase: String? = nil,
                     after: String? = nil) throws -> CommitDiff {
        try diff(project: project, base: base, head: head, environment: environment, mergeBase: mergeBase, after: after,
                 now: Date())
    }

    public func compare(project: String, base: String, head: String, environment: String) throws -> RevisionComparison {
        try compare(project: project, base: base, head: head, environment: environment, depth: 100)
    }

    public func trend(project: String, type: String, branch: String, environment: String, limit: Int) throws -> [TrendPoint] {
        try trend(project: project, type: type, branch: branch, environment: environment, limit: limit, fingerprints: true)
    }

    /// Every type leaking at the branch head.
    public func leakingTypes(project: String, branch: String, environment: String) throws -> LeakingTypes {
        try leakingTypes(project: project, branch: branch, environment: environment, after: nil, limit: Int.max)
    }

    public func scenarioHistory(project: String, scenario: String, branch: String? = nil, environment: String,
                                limit: Int) throws -> ScenarioHistory {
        try scenarioHistory(project: project, scenario: scenario, branch: branch, environment: environment, limit: limit, before: nil)
    }

    /// Every suppression of the project, oldest first.
    public func suppressions(project: String) throws -> [LeakSuppression] {
        try suppressions(project: project, after: nil, limit: Int.max)
    }

    public func addSuppression(project: String, _ rule: LeakSuppression) throws -> LeakSuppression {
        try addSuppression(project: project, rule, now: Date())
    }

    /// Every project name, sorted.
    public func projectNames() throws -> [String] {
        try projectNames(limit: Int(Int32.max))
    }

    public func createToken(project: String) throws -> IssuedToken {
        try createToken(project: project, scope: .write)
    }
}
