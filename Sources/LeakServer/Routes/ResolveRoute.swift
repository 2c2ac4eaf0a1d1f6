import LeakReport

/// `POST /v1/projects/{project}/resolve`: the nearest candidate commit with a usable
/// (non-suspect) upload for the environment, or `base: null`.
enum ResolveRoute {
    static let maxCandidates = 1_000

    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let body = try QueryInput.decode(ResolveRequest.self, from: request.body)
        let environment = try QueryInput.text(body.environment, field: "environment")
        guard body.candidates.count <= maxCandidates else {
            throw HTTPFailure.badRequest(
                "candidates: \(body.candidates.count) candidates, more than the limit of \(maxCandidates)")
        }
        let candidates = try body.candidates.enumerated().map { index, sha in
            try QueryInput.commit(sha, field: "candidates[\(index)]")
        }
        let found = try context.store.resolveBase(project: project, environment: environment, candidates: candidates)
        return try Response.json(ResolveResponse(base: found.map { candidates[$0] }, distance: found,
                                                 searched: found.map { $0 + 1 } ?? candidates.count))
    }
}
