import LeakReport
import LeakStore

/// `/p/{project}?branch=&environment=`: the types leaking at the branch head, each with a
/// sparkline of its trend; the newest runs; the newest leaks.
enum ProjectPage {
    /// Types that get a sparkline (each is one trend query); the rest are listed without.
    static let sparklineTypes = 12
    /// Commits a sparkline spans.
    static let sparklineCommits = 30

    static func render(_ request: Request, store: any LeakStorage, project: String) throws -> Response {
        let scope = try DashboardScope(request, store: store, project: project)
        let links = scope.links
        let types = try store.leakingTypes(project: project, branch: scope.branch, environment: scope.environment)
        let shownTypes = types.types.prefix(DashboardPage.rowLimit)
        let typeRows = try shownTypes.enumerated().map { index, summary -> HTML in
            let spark: HTML = index < sparklineTypes
                ? TrendChartSVG.sparkline(try store.trend(project: project, type: summary.type, branch: scope.branch,
                                                          environment: scope.environment, limit: sparklineCommits))
                : ""
            let direction: HTML = switch summary.direction {
            case .rising: "<span class=\"leak\">rising</span>"
            case .falling: "<span class=\"ok\">falling</span>"
            case .flat: "flat"
            }
            return """
                <tr data-type="\(summary.type)"><td><a href="\(links.type(summary.type, branch: scope.branch, environment: scope.environment))">\
                \(summary.type)</a></td><td class="num">\(summary.leakingScenarios.count)</td><td>\(direction)</td>\
                <td>\(DashboardPage.commitLink(summary.firstSeen, links: links))</td><td>\(spark)</td></tr>
                """
        }
        let headNote: HTML = types.head.map { head in
            "<p>Head of <code>\(scope.branch)</code> in <code>\(scope.environment)</code>: \(DashboardPage.commitLink(head, links: links))</p>"
        } ?? "<p class=\"empty\">No usable runs on <code>\(scope.branch)</code> in <code>\(scope.environment)</code>.</p>"

        let runRows = scope.activity.runs.map { run -> HTML in
            """
            <tr data-run="\(Int(run.runID))"><td>\(DashboardPage.commitLink(run.commit, links: links))</td><td>\(run.branch)</td>\
            <td>\(run.environment)</td><td><time datetime="\(run.startedAt)">\(run.startedAt)</time></td><td class="num">\(run.checks)</td>\
            <td class="num\(HTML(trusted: run.leaked > 0 ? " leak" : ""))">\(run.leaked)</td><td class="num">\(run.lateRelease)</td>\
            <td class="num">\(run.errors)</td><td>\(HTML(trusted: run.suspect ? "<span class=\"warn\">suspect</span>" : ""))</td></tr>
            """
        }
        let leakRows = scope.activity.leaks.map { leak -> HTML in
            """
            <tr data-leak="\(leak.type)"><td><a href="\(links.type(leak.type, branch: leak.branch, environment: leak.environment))">\
            \(leak.type)</a></td><td>\(leak.scenario)</td><td><code>\(leak.fingerprint)</code></td>\
            <td>\(DashboardPage.commitLink(leak.commit, links: links))</td><td>\(leak.environment)</td></tr>
            """
        }
        let head = types.head ?? ""
        let body: HTML = """
            \(scope.pickers(action: links.project()))
            <p class="permalink">Link to this view: <a href="\(links.project(branch: scope.branch, environment: scope.environment))">\
            \(links.project(branch: scope.branch, environment: scope.environment))</a></p>
            <h2>Leaking types</h2>
            \(headNote)
            \(DashboardPage.table(["Type", "Scenarios", "Direction", "First seen", "Last \(sparklineCommits) commits"], typeRows,
                                  empty: "Nothing leaks at the head of this branch.", id: "types"))
            \(DashboardPage.cutNote(types.types.count > shownTypes.count, shown: shownTypes.count, what: "types"))
            <h2>Compare two commits</h2>
            <form class="pickers" method="get" action="\(links.diff())">\
            <label>Base <input name="base" size="42" placeholder="40-digit commit id"></label>\
            <label>Head <input name="head" size="42" value="\(head)"></label>\
            <input type="hidden" name="environment" value="\(scope.environment)"><button type="submit">Diff</button></form>
            <h2>Newest runs</h2>
            \(DashboardPage.table(["Commit", "Branch", "Environment", "Started", "Checks", "Leaked", "Late", "Errors", ""], runRows,
                                  empty: "No runs uploaded yet.", id: "runs"))
            \(DashboardPage.cutNote(scope.activity.runsCut, shown: scope.activity.runs.count, what: "runs"))
            <h2>Newest leaks</h2>
            \(DashboardPage.table(["Type", "Scenario", "Fingerprint", "Commit", "Environment"], leakRows,
                                  empty: "No leaks in the newest runs.", id: "leaks"))
            \(DashboardPage.cutNote(scope.activity.leaksCut, shown: scope.activity.leaks.count, what: "leaks"))
            """
        return DashboardPage.render(
            title: project, crumbs: [.init(label: "Projects", href: DashboardLinks.projects), .init(label: project)], body: body)
    }
}
