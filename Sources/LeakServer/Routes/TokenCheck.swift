import LeakStore

/// The one place a route's `Router.Access` is checked against a request's credentials. The
/// dispatcher calls it on the headers, before a body byte is read, and again on the worker
/// before the handler when the headers were admitted on a remembered token.
enum TokenCheck {
    /// Whether `access` asks for any credential under `configuration`: a request that needs one
    /// and carries none is refused without a database lookup.
    static func needsCredential(_ access: Router.Access, _ configuration: ServerConfiguration) -> Bool {
        switch access {
        case .open: false
        case .write: true
        case .read, .page: configuration.requireReadToken
        case .healthz: configuration.requireReadToken && !configuration.healthzWithoutToken
        case .metrics: configuration.requireReadToken && !configuration.metricsWithoutToken
        }
    }

    /// Whether the request carries something that could be a credential for `access`.
    static func hasCredential(_ access: Router.Access, _ request: Request) -> Bool {
        request.bearerToken != nil || (access == .page && DashboardSessions.cookie(in: request) != nil)
    }

    /// Whether the store remembers the request's bearer token as live for the route's project and
    /// scope (`LeakStorage.rememberedToken`, no database read): its body may then be read before a
    /// worker has checked the token, provided `authorize` runs before the handler does.
    /// False for anything else, which a worker checks before the body is read.
    static func remembered(_ access: Router.Access, _ request: Request, _ context: RequestContext) -> Bool {
        let scope: TokenScope
        switch access {
        case .write: scope = .write
        case .read: scope = .read
        case .open, .page, .healthz, .metrics: return false
        }
        guard let token = request.bearerToken,
              case let .valid(_, project, tokenScope)? = context.store.rememberedToken(token) else { return false }
        return project == request.parameter("project") && grants(tokenScope, scope)
    }

    /// The id of the bearer token in `headers` (lower-cased names) when the store remembers it as
    /// live, whatever its project or scope: what the request is budgeted by (`ClientKey.credential`).
    /// Memory alone, no database read: the I/O thread asks it of every request's headers.
    static func rememberedID(_ headers: [String: String], _ context: RequestContext) -> Int64? {
        guard let token = Request.bearerToken(in: headers["authorization"]),
              case let .valid(id, _, _)? = context.store.rememberedToken(token) else { return nil }
        return id
    }

    /// Checks a bearer token that `access` does not ask for, when the store does not remember it
    /// as live, so that it is remembered: the client's next requests are then budgeted by it
    /// (`rememberedID`). A read route that needs no token otherwise never looks at one. Whatever
    /// the verdict, the request goes on as it would have.
    static func noteUnneededToken(_ access: Router.Access, _ request: Request, _ context: RequestContext) {
        guard !needsCredential(access, context.configuration), let token = request.bearerToken,
              context.store.rememberedToken(token) == nil else { return }
        _ = try? context.store.verifyToken(token)
    }

    /// Whether the dispatcher leaves the check of `request`'s token to the route's own write:
    /// for a route that does it (`Router.Route.checksCredentialInWrite`) and a token remembered
    /// as live, whose body was read on its headers. The handler then parses the body before the
    /// database has had its word, which refuses in the transaction that would store it
    /// (`inWrite`): one transaction an upload instead of a read before it. A token this process
    /// revoked is forgotten at once and refused on its headers; only one revoked by another
    /// process within `tokenMemorySeconds` has a body parsed before it is refused.
    static func leftToWrite(_ route: Router.Route, _ request: Request, _ context: RequestContext) -> Bool {
        route.checksCredentialInWrite && remembered(route.access, request, context)
    }

    /// The check a write route's store transaction makes (`LeakStorage.ingest`'s `credential`)
    /// when the dispatcher left it (`leftToWrite`); nil when the token was checked already.
    static func inWrite(_ request: Request, _ context: RequestContext) -> CredentialCheck? {
        guard request.credentialLeftToWrite, let token = request.bearerToken else { return nil }
        let project = request.parameter("project")
        return CredentialCheck(token: token) { verdict in
            try check(verdict, scope: .write, project: project, store: context.store, what: "the token")
        }
    }

    /// Whether a token of `tokenScope` may call a route that needs `scope`: a write token does
    /// everything, a read token reads. The one rule `remembered` and `check` both apply.
    private static func grants(_ tokenScope: TokenScope, _ scope: TokenScope) -> Bool {
        scope == .read || tokenScope == .write
    }

    /// Throws the refusal (401, 403, or 404 for an unknown project) unless `request` may call a
    /// route with `access`.
    static func authorize(_ access: Router.Access, _ request: Request, _ context: RequestContext) throws {
        guard needsCredential(access, context.configuration) else { return }
        let project = request.parameter("project")
        switch access {
        case .open:
            return
        case .write:
            try require(.write, for: project, request: request, store: context.store)
        case .read:
            try require(.read, for: project, request: request, store: context.store)
        case .page:
            if request.bearerToken == nil, let cookie = DashboardSessions.cookie(in: request) {
                try check(try context.sessions.verify(cookie, store: context.store), scope: .read, project: project, store: context.store,
                          what: "the dashboard session")
            } else {
                try require(.read, for: project, request: request, store: context.store)
            }
        case .healthz, .metrics:
            guard let token = request.bearerToken else {
                throw HTTPFailure.unauthorized("this server requires a token for \(request.path); send "
                    + "`Authorization: Bearer <token>` with a token of any project")
            }
            guard case .valid = try context.store.verifyToken(token) else {
                throw HTTPFailure.unauthorized("the bearer token is not known to this server or was revoked")
            }
        }
    }

    /// Requires a live bearer token of `project`; `scope: .write` also refuses read tokens.
    /// 401 without a token or with an unknown or revoked one; 403 for another project's token.
    private static func require(_ scope: TokenScope, for project: String, request: Request, store: any LeakStorage) throws {
        let what = scope == .write ? "write token" : "token"
        guard let token = request.bearerToken else {
            throw HTTPFailure.unauthorized(
                "this route needs `Authorization: Bearer <\(what)>` for project \"\(project)\"; "
                    + "create one with `leakhistory-server tokens create \(project)`")
        }
        try check(try store.verifyToken(token), scope: scope, project: project, store: store, what: "the token")
    }

    private static func check(_ verdict: TokenVerdict, scope: TokenScope, project: String, store: any LeakStorage,
                              what: String) throws {
        switch verdict {
        case .unknown:
            throw HTTPFailure.unauthorized(what == "the token"
                ? "the bearer token is not known to this server; check LEAKHISTORY_TOKEN"
                : "\(what) is not known to this server or has expired; sign in again")
        case let .revoked(id):
            throw HTTPFailure.unauthorized("token \(id) was revoked; create a new one with `leakhistory-server tokens create \(project)`")
        case let .valid(_, tokenProject, tokenScope):
            guard tokenProject == project else {
                guard try store.projectExists(project) else { throw LeakStoreError.projectNotFound(project) }
                throw HTTPFailure.forbidden("\(what) belongs to project \"\(tokenProject)\", not \"\(project)\"")
            }
            if !grants(tokenScope, scope) {
                throw HTTPFailure.forbidden("a read token cannot upload; use a write token of \"\(project)\"")
            }
        }
    }
}
