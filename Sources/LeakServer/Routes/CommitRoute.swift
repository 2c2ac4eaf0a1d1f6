import LeakReport
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
        return try Response.json(CommitResponse(commit))
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

extension CommitResponse {
    init(_ commit: CommitSummary) {
        self.init(sha: commit.sha, branch: commit.branch, parents: commit.parents, runs: commit.runs.map { run in
            Run(runID: run.runID, runKey: run.runKey, environment: run.environment, startedAt: run.startedAt,
                checks: run.checks, leaked: run.leaked, lateRelease: run.lateRelease, errors: run.errors,
                suspect: run.suspect, leaks: run.leaks.map {
                    Leak(scenario: $0.scenario, type: $0.type, file: $0.file, line: $0.line, fingerprint: $0.fingerprint,
                         retainPath: $0.retainPath, message: $0.message)
                })
        }, next: commit.next)
    }
}
