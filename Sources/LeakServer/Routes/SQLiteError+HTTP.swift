import CSQLite
import LeakStore

extension SQLiteError {
    /// The answer for a storage failure the client should hear about, or nil for one that stays
    /// a logged 500. A full disk (`SQLITE_FULL`) is 507 `storage_full`: the transaction was
    /// rolled back, nothing of the request is stored, and the same upload succeeds once there is
    /// space again. A busy database is 503 `storage_busy`.
    var httpFailure: HTTPFailure? {
        switch primaryCode {
        case SQLITE_FULL:
            HTTPFailure(507, "storage_full",
                        "the server's disk is full; nothing from this request was stored. Retry once the operator has freed space")
        case SQLITE_BUSY:
            HTTPFailure(503, "storage_busy", "the database is busy; nothing from this request was stored. Retry shortly",
                        headers: ["Retry-After": "1"])
        default:
            nil
        }
    }
}
