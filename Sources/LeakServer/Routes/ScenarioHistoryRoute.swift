import LeakReport
import LeakStore

/// `GET /v1/projects/{project}/scenarios/history?scenario=&branch=&environment=&limit=`: the
/// scenario's keys and states per commit, oldest first (along the branch's first parents when given).
///
/// The scenario is a query argument, not a path segment: scenario ids hold `/`
/// (`ProfileTests/open()`), and libmicrohttpd decodes `%2F` before routing.
enum ScenarioHistoryRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let scenario = try QueryInput.text(request.query["scenario"], field: "scenario")
        let environment = try QueryInput.environment(request)
        let limit = try QueryInput.limit(request)
        let branch = try request.query["branch"].map { try QueryInput.text($0, field: "branch") }
        let history = try context.store.scenarioHistory(project: project, scenario: scenario, branch: branch,
                                                        environment: environment, limit: limit)
        return try Response.json(ScenarioHistoryResponse(history))
    }
}

extension ScenarioHistoryResponse {
    init(_ history: ScenarioHistory) {
        self.init(scenario: history.scenario, environment: history.environment, commits: history.commits.map { commit in
            Commit(commit: commit.commit, keys: commit.keys.map {
                Key(type: $0.type, state: $0.state, checked: $0.checked, leaked: $0.leaked)
            })
        })
    }
}
