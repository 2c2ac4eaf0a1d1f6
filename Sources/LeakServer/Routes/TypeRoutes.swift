/// `GET /v1/projects/{project}/types?branch=&environment=` and
/// `GET /v1/projects/{project}/types/{type}/trend?branch=&limit=&environment=`.
enum TypeRoutes {
    @Sendable
    static func types(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let branch = try QueryInput.text(request.query["branch"], field: "branch")
        let environment = try QueryInput.environment(request)
        return try Response.json(try context.store.leakingTypes(project: project, branch: branch, environment: environment))
    }

    @Sendable
    static func trend(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let type = try QueryInput.text(request.parameter("type"), field: "type")
        let branch = try QueryInput.text(request.query["branch"], field: "branch")
        let environment = try QueryInput.environment(request)
        let limit = try QueryInput.limit(request)
        return try Response.json(try context.store.trend(
            project: project, type: type, branch: branch, environment: environment, limit: limit))
    }
}
