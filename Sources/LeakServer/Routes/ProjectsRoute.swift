import LeakReport
import LeakStore

/// `GET /v1/projects`: the projects a caller may use, for a CLI that was given none. With a
/// bearer token, the token's own project (a token names one); without one, every project when
/// reads are open, as the dashboard's front page lists them; under `requireReadToken`, a token
/// is needed.
enum ProjectsRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        if let token = request.bearerToken {
            guard case let .valid(_, project, _) = try context.store.verifyToken(token) else {
                throw HTTPFailure.unauthorized("the bearer token is not known to this server or was revoked; check LEAKHISTORY_TOKEN")
            }
            return ProjectsResponse(projects: [project])
        }
        guard !context.configuration.requireReadToken else {
            throw HTTPFailure.unauthorized("this server requires a token to list projects; send `Authorization: Bearer <token>`")
        }
        return ProjectsResponse(projects: try context.store.projectNames(limit: ProjectsResponse.limit))
    }
}

extension ProjectsResponse: ResponseGenerator {}
