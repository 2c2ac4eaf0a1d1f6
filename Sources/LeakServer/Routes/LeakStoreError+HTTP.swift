import LeakStore

/// The one place where the storage boundary's errors become HTTP answers, whatever the engine.
/// A busy or unreachable database is 503 with `Retry-After` (nothing of the request was
/// stored; the same request succeeds later), a full disk 507.
extension LeakStoreError: HTTPError {
    public var status: Int {
        switch self {
        case .projectNotFound, .tokenNotFound: return 404
        case .projectExists, .runKeyConflict: return 409
        case .busy, .unavailable, .queryTimeout: return 503
        case .full: return 507
        case .schemaTooNew, .walUnavailable: return 500
        }
    }

    public var code: String {
        switch self {
        case .projectNotFound: return "project_not_found"
        case .tokenNotFound: return "token_not_found"
        case .projectExists: return "project_exists"
        case .runKeyConflict: return "run_key_conflict"
        case .busy: return "storage_busy"
        case .queryTimeout: return "query_timeout"
        case .unavailable: return "storage_unavailable"
        case .full: return "storage_full"
        case .schemaTooNew, .walUnavailable: return "internal_error"
        }
    }

    /// The engine's own words stay in the log: a client hears what happened and what to do.
    public var message: String {
        switch self {
        case .busy: return "the database is busy; nothing from this request was stored. Retry shortly"
        case .queryTimeout:
            return "the query took longer than the server's time budget and was stopped; narrow it "
                + "(a shorter range, a smaller limit) or retry when the server is less busy"
        case .unavailable:
            return "the database cannot be reached; nothing from this request was stored. Retry in a few seconds"
        case .full:
            return "the server's disk is full; nothing from this request was stored. Retry once the operator has freed space"
        case .schemaTooNew, .walUnavailable: return "the server's database is not usable; the server log says why"
        default: return description
        }
    }

    public var headers: [String: String] {
        switch self {
        case .busy, .queryTimeout: return ["Retry-After": "1"]
        case .unavailable: return ["Retry-After": "2"]
        default: return [:]
        }
    }
}
