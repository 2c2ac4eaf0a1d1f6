import LeakStore

/// What a project page looks at: the project, a branch and an environment, from `?branch=` and
/// `?environment=` or, when left out, those of the project's newest run (that matches the one
/// given, if one is), so that a bare `/p/app` shows something useful and a link with both
/// arguments always shows the same view.
struct DashboardScope {
    var project: String
    var branch: String
    var environment: String
    /// The project's newest runs and leaks, its branches and environments.
    var activity: ProjectActivity

    var links: DashboardLinks { DashboardLinks(project: project) }

    /// - Throws: `LeakStoreError.projectNotFound` (a 404 page), or a 400 for an empty or
    ///   over-long argument.
    /// - Parameter head: a revision the page is about (the diff's head: a branch name or the
    ///   first digits of a commit id), which the newest run must match too when it can.
    init(_ request: Request, store: any LeakStorage, project: String, head: String? = nil) throws {
        self.project = project
        activity = try store.activity(project: project, limit: DashboardPage.rowLimit)
        let askedBranch = try request.query["branch"].map { try QueryInput.text($0, field: "branch") }
        let askedEnvironment = try request.query["environment"].map { try QueryInput.text($0, field: "environment") }
        // The one left out comes from the newest run that matches what is given, so that
        // `?branch=main` shows main where it has data, not the environment of another branch.
        let matching = activity.runs.filter { run in
            (askedBranch == nil || run.branch == askedBranch) && (askedEnvironment == nil || run.environment == askedEnvironment)
                && (head.map { run.branch == $0 || (!$0.isEmpty && run.commit.hasPrefix($0.lowercased())) } ?? true)
        }
        let newest = matching.first { !$0.suspect } ?? matching.first ?? activity.runs.first { !$0.suspect } ?? activity.runs.first
        branch = askedBranch ?? newest?.branch ?? "main"
        environment = askedEnvironment ?? newest?.environment ?? "default"
    }

    /// The branch and environment pickers, submitting to `action`.
    func pickers(action: String, withBranch: Bool = true, keep: [(name: String, value: String)] = [],
                 leading: [HTML] = []) -> HTML {
        DashboardPage.pickers(action: action, branches: withBranch ? activity.branches : nil, branch: branch,
                              environments: activity.environments, environment: environment, keep: keep, leading: leading)
    }
}
