import LeakReport
import LeakStore

/// `/p/{project}/commits/{sha}`: the commit's runs with their check counts; its leaks in each
/// environment, one row per root cause (fingerprint group) with the retain path; the history
/// of the scenarios that leak here; a diff link against its first parent for each environment.
/// Leaks come a page at a time (`?limit=&cursor=`, as the API's), with a link to the next page.
enum CommitPage {
    static func render(_ request: Request, store: any LeakStorage, project: String) throws -> Response {
        let sha = try QueryInput.commit(request.parameter("sha"), field: "sha")
        let links = DashboardLinks(project: project)
        let page = try CommitRoute.page(request)
        guard let commit = try store.commit(project: project, sha: sha, limit: page.limit, cursor: page.cursor) else {
            throw HTTPFailure.notFound("Project \"\(project)\" has no uploads for commit \(sha).")
        }
        let runRows = commit.runs.map { run -> DashboardPage.Row in
            DashboardPage.Row("data-run=\"\(Int(run.runID))\"", [
                "<code>\(run.runKey)</code>", "\(run.environment)", "<time datetime=\"\(run.startedAt)\">\(run.startedAt)</time>",
                "\(run.checks)", DashboardPage.leakCount(run.leaked), "\(run.lateRelease)", "\(run.errors)",
                run.suspect ? "<span class=\"warn\">suspect</span>" : "",
            ])
        }
        let environments = Array(Set(commit.runs.map(\.environment))).sorted()
        let leakSections = HTML.joined(environments.map { environment in
            leaks(in: commit, environment: environment, links: links)
        }, separator: "\n")
        let leakingScenarios = Array(Set(commit.runs.flatMap { $0.leaks.map(\.scenario) })).sorted()
        let histories = try environments.first.map { environment in
            try leakingScenarios.prefix(DashboardPage.historyScenarios).map {
                try store.scenarioHistory(project: project, scenario: $0, branch: nil, environment: environment, limit: DashboardPage.historyCommits)
            }
        } ?? []
        let history: HTML = histories.isEmpty ? "" : """
            <h2>History of the scenarios that leak here (\(environments[0]))</h2>
            \(DashboardPage.scenarioHistory(histories, type: nil, links: links, id: "scenario-history"))
            """
        let parentLinks: [HTML] = commit.parents.first.map { parent in
            environments.map { environment in
                "<li><a href=\"\(links.diff(base: parent, head: commit.sha, environment: environment))\">Diff against the first parent in \(environment)</a></li>"
            }
        } ?? []
        let parents: HTML = commit.parents.isEmpty ? "" : """
             · parents \(HTML.joined(commit.parents.map { DashboardPage.commitLink($0, links: links) }, separator: ", "))
            """
        let parentList: HTML = parentLinks.isEmpty ? "" : "<ul>\(HTML.joined(parentLinks))</ul>"
        let shown = commit.runs.reduce(0) { $0 + $1.leaks.count }
        let nextPage: HTML = commit.next.map { next in
            """
            <p class="cut" id="next-page">Showing \(shown) leaked checks of this page. \
            <a href="\(links.commit(commit.sha))?limit=\(page.limit)&amp;cursor=\(next)">Next page</a></p>
            """
        } ?? ""
        let body: HTML = """
            <p>Branch <code>\(commit.branch ?? "unknown")</code>\(parents)</p>
            \(parentList)
            <p class="permalink">Link to this page: <a href="\(links.commit(commit.sha))">\(links.commit(commit.sha))</a></p>
            <h2>Runs</h2>
            \(DashboardPage.table(["Run key", "Environment", "Started", .init("Checks", class: "num"), .init("Leaked", class: "num"),
                                   .init("Late", class: "num"), .init("Errors", class: "num"), "Note"], runRows,
                                  empty: "No runs.", id: "runs"))
            \(leakSections.rendered.isEmpty ? "<h2>Leaks</h2><p class=\"empty\" id=\"leaks\">No check leaked at this commit.</p>" : leakSections)
            \(nextPage)
            \(history)
            """
        return DashboardPage.render(
            title: "Commit \(commit.sha.prefix(10))",
            crumbs: [.init(label: "Projects", href: DashboardLinks.projects), .init(label: project, href: links.project()),
                     .init(label: String(commit.sha.prefix(10)))],
            body: body)
    }

    /// The environment's leaked checks folded into one key each (the first run's check tells),
    /// grouped by fingerprint.
    private static func leaks(in commit: CommitSummary, environment: String, links: DashboardLinks) -> HTML {
        var observations: [LeakKey: KeyObservation] = [:]
        var suspectOnly = true
        for run in commit.runs where run.environment == environment {
            if !run.suspect { suspectOnly = false }
            for leak in run.leaks where observations[LeakKey(scenario: leak.scenario, type: leak.type)] == nil {
                observations[LeakKey(scenario: leak.scenario, type: leak.type)] = KeyObservation(
                    state: .leaked, file: leak.file, line: leak.line, fingerprint: leak.fingerprint,
                    retainPath: leak.retainPath, message: leak.message)
            }
        }
        guard !observations.isEmpty else { return "" }
        // Against an empty base every key that leaked here is "new": one group per root cause.
        let groups = LeakDiff(base: [:], head: observations).groups
        let rows = groups.prefix(DashboardPage.rowLimit).map { group in
            DashboardPage.Row("data-leak=\"\(group.types.joined(separator: " "))\" data-fingerprint=\"\(group.fingerprint)\"",
                              GroupCells.cells(group, links: links, branch: commit.branch, environment: environment))
        }
        let suspect: HTML = suspectOnly ? " <span class=\"warn\">suspect runs only</span>" : ""
        return """
            <h2>Leaks in <code>\(environment)</code> (\(LeakGroup.tally(groups)))\(suspect)</h2>
            \(DashboardPage.table(GroupCells.columns, rows,
                                  empty: "", id: "leaks-\(environment)"))
            \(DashboardPage.cutNote(groups.count > DashboardPage.rowLimit, shown: DashboardPage.rowLimit, what: "root causes"))
            """
    }
}
