import LeakReport
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
        return try Response.json(CommitResponse(commit))
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
        })
    }
}
