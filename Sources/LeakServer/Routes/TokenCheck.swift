import LeakStore

/// Bearer-token checks shared by the project routes.
enum TokenCheck {
    /// Requires a live token of `project`; `scope: .write` also refuses read tokens.
    /// 401 without a token or with an unknown or revoked one; 403 for another project's token.
    static func require(_ scope: TokenScope, for project: String, request: Request, store: any LeakStorage) throws {
        let what = scope == .write ? "write token" : "token"
        guard let token = request.bearerToken else {
            throw HTTPFailure.unauthorized(
                "this route needs `Authorization: Bearer <\(what)>` for project \"\(project)\"; "
                    + "create one with `leakhistory-server tokens create \(project)`")
        }
        switch try store.verifyToken(token) {
        case .unknown:
            throw HTTPFailure.unauthorized("the bearer token is not known to this server; check LEAKHISTORY_TOKEN")
        case let .revoked(id):
            throw HTTPFailure.unauthorized("token \(id) was revoked; create a new one with `leakhistory-server tokens create \(project)`")
        case let .valid(_, tokenProject, tokenScope):
            guard tokenProject == project else {
                guard try store.projectExists(project) else { throw LeakStoreError.projectNotFound(project) }
                throw HTTPFailure.forbidden("the token belongs to project \"\(tokenProject)\", not \"\(project)\"")
            }
            if scope == .write && tokenScope != .write {
                throw HTTPFailure.forbidden("a read token cannot upload; use a write token of \"\(project)\"")
            }
        }
    }
}
