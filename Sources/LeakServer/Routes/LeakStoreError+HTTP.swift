import LeakStore

extension LeakStoreError: HTTPError {
    public var status: Int {
        switch self {
        case .projectNotFound, .tokenNotFound: return 404
        case .projectExists, .runKeyConflict: return 409
        case .schemaTooNew, .walUnavailable: return 500
        }
    }

    public var code: String {
        switch self {
        case .projectNotFound: return "project_not_found"
        case .tokenNotFound: return "token_not_found"
        case .projectExists: return "project_exists"
        case .runKeyConflict: return "run_key_conflict"
        case .schemaTooNew, .walUnavailable: return "internal_error"
        }
    }

    public var message: String {
        switch self {
        case .schemaTooNew, .walUnavailable: return "the server's database is not usable; the server log says why"
        default: return description
        }
    }
}
