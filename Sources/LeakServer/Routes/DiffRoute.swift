import Foundation

/// `GET /v1/projects/{project}/diff?base=&head=&environment=`: every leak key classified
/// between the two commits. A commit with no usable runs is a side with `runs: 0`.
enum DiffRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let base = try QueryInput.commit(request.query["base"], field: "base")
        let head = try QueryInput.commit(request.query["head"], field: "head")
        let environment = try QueryInput.environment(request)
        return try Response.json(try context.store.diff(project: project, base: base, head: head, environment: environment))
    }
}
