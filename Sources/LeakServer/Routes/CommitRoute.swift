import LeakStore

/// `GET /v1/projects/{project}/commits/{sha}?limit=&cursor=`: what was uploaded for a commit —
/// every run, and one page of their leaks (`limit`, 1 to 1,000, default 200); `next` is the
/// cursor of the following page. Access `.read`.
enum CommitRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let sha = try QueryInput.commit(request.parameter("sha"), field: "sha")
        let page = try page(request)
        guard let commit = try context.store.commit(project: project, sha: sha, limit: page.limit, cursor: page.cursor) else {
            throw HTTPFailure.notFound("project \"\(project)\" has no uploads for commit \(sha)")
        }
        return try Response.json(commit)
    }

    /// `limit` and `cursor` of a commit page (the API's and the dashboard's).
    static func page(_ request: Request) throws -> (limit: Int, cursor: CommitCursor?) {
        var limit = LeakStore.defaultCommitLeaks
        if let raw = request.query["limit"] {
            guard let value = Int(raw), (1...LeakStore.maxCommitLeaks).contains(value) else {
                throw HTTPFailure.badRequest(
                    "limit: expected a whole number from 1 to \(LeakStore.maxCommitLeaks), found \"\(QueryInput.clip(raw))\"")
            }
            limit = value
        }
        let cursor = try request.query["cursor"].map { raw in
            guard let cursor = CommitCursor(raw) else {
                throw HTTPFailure.badRequest("cursor: not a cursor this server gave; use the `next` of the previous page")
            }
            return cursor
        }
        return (limit, cursor)
    }
}
