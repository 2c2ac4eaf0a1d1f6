/// What the store refuses, in words an operator can act on.
public enum LeakStoreError: Error, Sendable, Equatable, CustomStringConvertible {
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
