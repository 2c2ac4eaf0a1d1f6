import LeakStore

/// The dashboard's HTML pages, registered beside the JSON API. Each page answers a failure as
/// an HTML page that says what was not found (or what was wrong) and links back, never as the
/// API's JSON error body.
///
/// Reads are open unless the configuration sets `requireReadToken`; then every page needs a
/// read token of its project in `Authorization`, and `/` lists no projects.
enum DashboardRoutes {
    static func register(in router: inout Router) {
        router.get("/", handler: page(project: false) { request, context in
            guard !context.configuration.requireReadToken else {
                throw HTTPFailure.forbidden("This server requires a read token, so it does not list its projects.")
            }
            return try ProjectsPage.render(store: context.store)
        })
        router.get("/p/{project}", handler: page { try ProjectPage.render($0, store: $1.store, project: $0.parameter("project")) })
        router.get("/p/{project}/types/{type}", handler: page {
            try TypePage.render($0, store: $1.store, project: $0.parameter("project"))
        })
        router.get("/p/{project}/commits/{sha}", handler: page {
            try CommitPage.render($0, store: $1.store, project: $0.parameter("project"))
        })
        router.get("/p/{project}/diff", handler: page { try DiffPage.render($0, store: $1.store, project: $0.parameter("project")) })
    }

    /// Wraps a page: the read check, then the page, with every failure drawn as a page.
    private static func page(project: Bool = true,
                             _ render: @escaping @Sendable (Request, RequestContext) throws -> Response) -> Router.Handler {
        { request, context in
            let name = request.parameter("project")
            do {
                if project { try QueryInput.authorizeRead(request, context, project: name) }
                return try render(request, context)
            } catch let error as any HTTPError {
                let back: DashboardPage.Crumb = !project || error is LeakStoreError
                    ? .init(label: "the projects", href: DashboardLinks.projects)
                    : .init(label: name, href: DashboardLinks(project: name).project())
                var response = DashboardPage.problem(status: error.status, message: error.message, back: back)
                response.headers.merge(error.headers) { _, new in new }
                return response
            } catch {
                RequestLog.problem("\(request.method) \(request.path): \(error)")
                return DashboardPage.problem(status: 500, message: "The server failed to draw this page; the server log says why.",
                                             back: .init(label: "the projects", href: DashboardLinks.projects))
            }
        }
    }
}
