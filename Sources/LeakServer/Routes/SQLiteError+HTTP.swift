import CSQLite
import LeakStore

extension SQLiteError {
    /// The answer for a storage failure the client should hear about, or nil for one that stays
    /// a logged 500. A full disk (`SQLITE_FULL`) is 507 `storage_full`: the transaction was
    /// rolled back, nothing of the request is stored, and the same upload succeeds once there is
    /// space again. A busy database is 503 `storage_busy`; a read
    /// stopped for running past its time budget is 503 `query_timeout`.
    var httpFailure: HTTPFailure? {
        switch primaryCode {
        case SQLITE_FULL:
            HTTPFailure(507, "storage_full",
                        "the server's disk is full; nothing from this request was stored. Retry once the operator has freed space")
        case SQLITE_BUSY:
            HTTPFailure(503, "storage_busy", "the database is busy; nothing from this request was stored. Retry shortly",
                        headers: ["Retry-After": "1"])
        case SQLITE_INTERRUPT:
            // A read over the store's query time budget (StoreOptions.queryTimeBudget).
            HTTPFailure(503, "query_timeout",
                        "the query took longer than the server's time budget and was stopped; narrow it "
                            + "(a shorter range, a smaller limit) or retry when the server is less busy",
                        headers: ["Retry-After": "1"])
        default:
            nil
        }
    }
}
