import LeakStore

/// The dashboard's HTML pages, registered beside the JSON API. Each page answers a failure as
/// an HTML page that says what was not found (or what was wrong) and links back, never as the
/// API's JSON error body.
///
/// Reads are open unless the configuration sets `requireReadToken`; then every page needs a
/// token of its project, as `Authorization: Bearer` or as the session cookie the login form
/// (`/login`) hands out, a browser without either is sent to the login form, and `/` lists no
/// projects. The check is the router's (`Access.page`), before the page runs.
enum DashboardRoutes {
    static func register(in router: inout Router) {
        LoginRoutes.register(in: &router)
        router.get("/", handler: page(project: false) { request, context in
            guard !context.configuration.requireReadToken else {
                // Nothing to list without a project: the sign-in form, which opens the token's project.
                return LoginPage.form(next: "/", problem: "This server does not list its projects: signing in opens the token's project.",
                                      status: 403)
            }
            return try ProjectsPage.render(store: context.store)
        })
        router.get("/p/{project}", access: .page, presentFailure: presentFailure, handler: page { try ProjectPage.render($0, store: $1.store, project: $0.parameter("project")) })
        router.get("/p/{project}/types/{type}", access: .page, presentFailure: presentFailure, handler: page {
            try TypePage.render($0, store: $1.store, project: $0.parameter("project"))
        })
        router.get("/p/{project}/commits/{sha}", access: .page, presentFailure: presentFailure, handler: page {
            try CommitPage.render($0, store: $1.store, project: $0.parameter("project"))
        })
        router.get("/p/{project}/diff", access: .page, presentFailure: presentFailure, handler: page { try DiffPage.render($0, store: $1.store, project: $0.parameter("project")) })
    }

    /// A failure before the page ran (its access check) drawn as a page; a browser without a
    /// credential is sent to the login form, which brings it back here, and one whose session or
    /// token does not open this project (another project's, expired, revoked) gets the form with
    /// what was wrong, not a page that links back to itself.
    private static let presentFailure: Router.FailurePresenter = { request, error in
        if error.status == 401 && DashboardSessions.cookie(in: request) == nil && request.bearerToken == nil {
            return LoginPage.redirect(next: request.path)
        }
        if error.status == 401 || error.status == 403 {
            let what = error.message.hasSuffix(".") ? String(error.message.dropLast()) : error.message
            return LoginPage.form(next: request.path, problem: "\(what.prefix(1).uppercased() + what.dropFirst()). Sign in "
                                  + "with a token of project \"\(request.parameter("project"))\" to see this page.",
                                  status: error.status)
        }
        return problem(error, request: request, project: true)
    }

    private static func problem(_ error: any HTTPError, request: Request, project: Bool) -> Response {
        let name = request.parameter("project")
        let back: DashboardPage.Crumb = !project || error is LeakStoreError
            ? .init(label: "the projects", href: DashboardLinks.projects)
            : .init(label: name, href: DashboardLinks(project: name).project())
        var response = DashboardPage.problem(status: error.status, message: error.message, back: back)
        response.headers.merge(error.headers) { _, new in new }
        return response
    }

    /// Wraps a page, with every failure drawn as a page.
    private static func page(project: Bool = true,
                             _ render: @escaping @Sendable (Request, RequestContext) throws -> Response) -> Router.Handler {
        { request, context in
            do {
                return try render(request, context)
            } catch let error as any HTTPError {
                return problem(error, request: request, project: project)
            } catch {
                RequestLog.problem("\(request.method) \(request.path): \(error)")
                return DashboardPage.problem(status: 500, message: "The server failed to draw this page; the server log says why.",
                                             back: .init(label: "the projects", href: DashboardLinks.projects))
            }
        }
    }
}
