import Foundation
import LeakReport
import LeakStore

/// `GET /v1/projects/{project}/diff?base=&head=&environment=&mergeBase=&after=`: every leak key classified
/// between the two commits. A commit with no usable runs is a side with `runs: 0`; without
/// `base`, every leak at head is unverified. `after` is the base branch's nearest upload after
/// `mergeBase` (its leaks are inherited where the base's data ran out). Each new and flaky entry
/// carries the gate's evidence (`LeakDiff.Entry.evidence`).
enum DiffRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let base = try request.query["base"].map { try QueryInput.commit($0, field: "base") }
        let head = try QueryInput.commit(request.query["head"], field: "head")
        let after = try request.query["after"].map { try QueryInput.commit($0, field: "after") }
        let mergeBase = try request.query["mergeBase"].map { try QueryInput.commit($0, field: "mergeBase") }
        let environment = try QueryInput.environment(request)
        let diff = try context.store.diff(project: project, base: base, head: head, environment: environment,
                                          mergeBase: mergeBase, after: after)
        return Response.json(written: DiffResponse(project: project, environment: environment, diff).json())
    }
}

extension DiffResponse {
    init(project: String, environment: String, _ diff: CommitDiff) {
        self.init(project: project, environment: environment, base: diff.base.map(Side.init), head: Side(diff.head),
                  diff: diff.leaks)
    }
}

extension DiffResponse.Side {
    /// A side without suspect runs has no `suspectRuns` member on the wire.
    init(_ side: CommitDiff.Side) {
        self.init(commit: side.commit, runs: side.runs, suspectRuns: side.suspectRuns.isEmpty ? nil : side.suspectRuns.map {
            DiffResponse.SuspectRun(runID: $0.runID, checks: $0.checks, leaked: $0.leaked, errors: $0.errors)
        })
    }
}
