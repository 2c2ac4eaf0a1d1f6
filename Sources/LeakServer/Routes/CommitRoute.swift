import LeakStore

/// `GET /v1/projects/{project}/commits/{sha}`: what was uploaded for a commit. Open to anyone
/// unless the configuration sets `requireReadToken`.
enum CommitRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let sha = request.parameter("sha")
        if context.configuration.requireReadToken {
            try TokenCheck.require(.read, for: project, request: request, store: context.store)
        }
        guard sha.utf8.count == 40, sha.allSatisfy(\.isHexDigit) else {
            throw HTTPFailure.badRequest("sha: expected a 40-digit hex commit id")
        }
        guard let commit = try context.store.commit(project: project, sha: sha) else {
            throw HTTPFailure.notFound("project \"\(project)\" has no uploads for commit \(sha)")
        }
        return try Response.json(commit)
    }
}
