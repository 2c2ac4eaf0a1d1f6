import LeakReport
import LeakStore

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
        let leaking = try context.store.leakingTypes(project: project, branch: branch, environment: environment,
                                                     after: after, limit: limit)
        return try Response.json(TypesResponse(branch: branch, head: leaking.head, types: leaking.types.map(TypesResponse.Summary.init),
                                               next: leaking.next))
    }

    @Sendable
    static func trend(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let type = try QueryInput.text(request.parameter("type"), field: "type")
        let branch = try QueryInput.text(request.query["branch"], field: "branch")
        let environment = try QueryInput.environment(request)
        let limit = try QueryInput.limit(request)
        let points = try context.store.trend(project: project, type: type, branch: branch, environment: environment, limit: limit,
                                             fingerprints: true)
        return Response.json(written: TrendResponse(type: type, branch: branch, environment: environment,
                                                    points: points.map(TrendResponse.Point.init)).json())
    }
}

extension TypesResponse.Summary {
    init(_ summary: LeakingTypes.Summary) {
        let direction: TypesResponse.Direction = switch summary.direction {
        case .rising: .rising
        case .falling: .falling
        case .flat: .flat
        }
        self.init(type: summary.type, leakingScenarios: summary.leakingScenarios, firstSeen: summary.firstSeen,
                  lastSeen: summary.lastSeen, direction: direction)
    }
}

extension TrendResponse.Point {
    init(_ point: TrendPoint) {
        self.init(commit: point.commit, at: point.at, leakedKeys: point.leakedKeys, checkedKeys: point.checkedKeys,
                  scenarios: point.scenarios, fingerprints: point.fingerprints)
    }
}
