import LeakStore

/// `/p/{project}/commits/{sha}`: the commit's runs with their check counts and leaks, and a
/// diff link against its first parent for each environment.
enum CommitPage {
    static func render(_ request: Request, store: any LeakStorage, project: String) throws -> Response {
        let sha = try QueryInput.commit(request.parameter("sha"), field: "sha")
        let links = DashboardLinks(project: project)
        guard let commit = try store.commit(project: project, sha: sha) else {
            throw HTTPFailure.notFound("Project \"\(project)\" has no uploads for commit \(sha).")
        }
        let runRows = commit.runs.map { run -> HTML in
            """
            <tr data-run="\(Int(run.runID))"><td><code>\(run.runKey)</code></td><td>\(run.environment)</td>\
            <td><time datetime="\(run.startedAt)">\(run.startedAt)</time></td><td class="num">\(run.checks)</td>\
            <td class="num\(HTML(trusted: run.leaked > 0 ? " leak" : ""))">\(run.leaked)</td>\
            <td class="num">\(run.lateRelease)</td><td class="num">\(run.errors)</td>\
            <td>\(HTML(trusted: run.suspect ? "<span class=\"warn\">suspect</span>" : ""))</td></tr>
            """
        }
        let allLeaks = commit.runs.flatMap { run in run.leaks.map { (run: run, leak: $0) } }
        let leakRows = allLeaks.prefix(DashboardPage.rowLimit).map { item -> HTML in
            """
            <tr data-leak="\(item.leak.type)"><td><a href="\(links.type(item.leak.type, branch: commit.branch, environment: item.run.environment))">\
            \(item.leak.type)</a></td><td>\(item.leak.scenario)</td><td><code>\(item.leak.file):\(item.leak.line)</code></td>\
            <td><code>\(item.leak.fingerprint)</code></td><td>\(item.run.environment)\
            \(HTML(trusted: item.run.suspect ? " <span class=\"warn\">suspect run</span>" : ""))</td></tr>
            """
        }
        let environments = Array(Set(commit.runs.map(\.environment))).sorted()
        let parentLinks: [HTML] = commit.parents.first.map { parent in
            environments.map { environment in
                "<li><a href=\"\(links.diff(base: parent, head: commit.sha, environment: environment))\">Diff against the first parent in \(environment)</a></li>"
            }
        } ?? []
        let parents: HTML = commit.parents.isEmpty ? "" : """
             · parents \(HTML.joined(commit.parents.map { DashboardPage.commitLink($0, links: links) }, separator: ", "))
            """
        let parentList: HTML = parentLinks.isEmpty ? "" : "<ul>\(HTML.joined(parentLinks))</ul>"
        let body: HTML = """
            <p>Branch <code>\(commit.branch ?? "unknown")</code>\(parents)</p>
            \(parentList)
            <p class="permalink">Link to this page: <a href="\(links.commit(commit.sha))">\(links.commit(commit.sha))</a></p>
            <h2>Runs</h2>
            \(DashboardPage.table(["Run key", "Environment", "Started", "Checks", "Leaked", "Late", "Errors", ""], runRows,
                                  empty: "No runs.", id: "runs"))
            <h2>Leaks</h2>
            \(DashboardPage.table(["Type", "Scenario", "Where", "Fingerprint", "Environment"], leakRows,
                                  empty: "No check leaked at this commit.", id: "leaks"))
            \(DashboardPage.cutNote(allLeaks.count > DashboardPage.rowLimit, shown: DashboardPage.rowLimit, what: "leaks"))
            """
        return DashboardPage.render(
            title: "Commit \(commit.sha.prefix(10))",
            crumbs: [.init(label: "Projects", href: DashboardLinks.projects), .init(label: project, href: links.project()),
                     .init(label: String(commit.sha.prefix(10)))],
            body: body)
    }
}
