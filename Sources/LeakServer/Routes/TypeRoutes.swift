/// `GET /v1/projects/{project}/types?branch=&environment=&limit=&cursor=` (a page of the types,
/// sorted by name; `next` is the cursor of the following page) and
/// `GET /v1/projects/{project}/types/{type}/trend?branch=&limit=&environment=`.
enum TypeRoutes {
    @Sendable
    static func types(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let branch = try QueryInput.text(request.query["branch"], field: "branch")
        let environment = try QueryInput.environment(request)
        let limit = try QueryInput.pageLimit(request)
        let after = try request.query["cursor"].map { try QueryInput.text($0, field: "cursor") }
        return try Response.json(try context.store.leakingTypes(project: project, branch: branch, environment: environment,
                                                                after: after, limit: limit))
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
