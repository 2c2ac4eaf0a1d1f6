import LeakStore

/// `GET /v1/projects/{project}/commits/{sha}`: what was uploaded for a commit. Access `.read`.
enum CommitRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let sha = try QueryInput.commit(request.parameter("sha"), field: "sha")
        guard let commit = try context.store.commit(project: project, sha: sha) else {
            throw HTTPFailure.notFound("project \"\(project)\" has no uploads for commit \(sha)")
        }
        return try Response.json(commit)
    }
}
