/// What the store refuses or cannot do, in words an operator can act on: the one error type of
/// the storage boundary, whatever the engine.
public enum LeakStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database is locked by others or a statement ran out of time: retry shortly.
    case busy(String)
    /// A read ran past the store's query time budget (`StoreOptions.queryTimeBudget`) and was stopped.
    case queryTimeout(String)
    /// The disk (or the PostgreSQL tablespace) is full; nothing of the request was stored.
    case full(String)
    /// The database cannot be reached (PostgreSQL down or restarting, a file that cannot be
    /// opened): retry once it is back.
    case unavailable(String)
    /// The database was migrated by a newer LeakHistory than this one.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// SQLite would not switch the file to write-ahead logging.
    case walUnavailable(path: String, journalMode: String)
    case projectNotFound(String)
    case projectExists(String)
    case tokenNotFound(Int64)
    /// A run with this key exists with different content.
    case runKeyConflict(project: String, runKey: String, existingRunID: Int64)

    public var description: String {
        switch self {
        case let .busy(detail):
            return "the database is busy (\(detail)); nothing from this request was stored. Retry shortly"
        case let .queryTimeout(detail):
            return "the query ran past the server's time budget and was stopped (\(detail))"
        case let .full(detail):
            return "the database's disk is full (\(detail)); nothing from this request was stored. "
                + "Retry once the operator has freed space"
        case let .unavailable(detail):
            return "the database cannot be reached (\(detail)); nothing from this request was stored. "
                + "Retry once it is back"
        case let .schemaTooNew(path, found, supported):
            return "the database \(path) has schema version \(found), but this leakhistory-server only "
                + "knows versions up to \(supported); it was migrated by a newer build. Run the newer "
                + "leakhistory-server, or restore a backup taken before the upgrade."
        case let .walUnavailable(path, mode):
            return "the database \(path) would not switch to write-ahead logging (journal_mode is "
                + "\"\(mode)\"); WAL needs a local file system with shared-memory support, not a network share."
        case let .projectNotFound(name):
            return "no project named \"\(name)\"; create it with `leakhistory-server projects create \(name)`"
        case let .projectExists(name):
            return "a project named \"\(name)\" already exists"
        case let .tokenNotFound(id):
            return "no token with id \(id); `leakhistory-server tokens list PROJECT` shows the ids"
        case let .runKeyConflict(project, runKey, existing):
            return "project \"\(project)\" already has run \(existing) with runKey \"\(runKey)\" and different "
                + "content; a runKey names one run, so give a new attempt its own key"
        }
    }
}
