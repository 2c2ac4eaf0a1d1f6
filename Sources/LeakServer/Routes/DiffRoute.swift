import Foundation

/// `GET /v1/projects/{project}/diff?base=&head=&environment=&after=`: every leak key classified
/// between the two commits. A commit with no usable runs is a side with `runs: 0`; without
/// `base`, every leak at head is unverified. `after` is the base branch's nearest upload after
/// the merge-base, given when the base fell back past commits without data; `tip` its newest
/// upload, where the flaky window starts.
enum DiffRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let base = try request.query["base"].map { try QueryInput.commit($0, field: "base") }
        let head = try QueryInput.commit(request.query["head"], field: "head")
        let after = try request.query["after"].map { try QueryInput.commit($0, field: "after") }
        let tip = try request.query["tip"].map { try QueryInput.commit($0, field: "tip") }
        let environment = try QueryInput.environment(request)
        return try Response.json(try context.store.diff(project: project, base: base, head: head, environment: environment,
                                                        after: after, tip: tip))
    }
}
