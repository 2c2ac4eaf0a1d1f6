import Foundation
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
        let typeRows = try shownTypes.enumerated().map { index, summary -> DashboardPage.Row in
            let spark: HTML = index < sparklineTypes
                ? TrendChartSVG.sparkline(try store.trend(project: project, type: summary.type, branch: scope.branch,
                                                          environment: scope.environment, limit: sparklineCommits),
                                          type: summary.type)
                : ""
            let direction: HTML = switch summary.direction {
            case .rising: "<span class=\"leak\">rising</span>"
            case .falling: "<span class=\"ok\">falling</span>"
            case .flat: "flat"
            }
            return DashboardPage.Row("data-type=\"\(summary.type)\"", [
                "<a href=\"\(links.type(summary.type, branch: scope.branch, environment: scope.environment))\">\(summary.type)</a>",
                "\(summary.leakingScenarios.count)", direction, DashboardPage.commitLink(summary.firstSeen, links: links), spark,
            ])
        }
        let headNote: HTML = types.head.map { head in
            "<p>Head of <code>\(scope.branch)</code> in <code>\(scope.environment)</code>: \(DashboardPage.commitLink(head, links: links))</p>"
        } ?? "<p class=\"empty\">No usable runs on <code>\(scope.branch)</code> in <code>\(scope.environment)</code>.</p>"

        let runRows = scope.activity.runs.map { run -> DashboardPage.Row in
            DashboardPage.Row("data-run=\"\(Int(run.runID))\"", [
                DashboardPage.commitLink(run.commit, links: links), "\(run.branch)", "\(run.environment)",
                "<time datetime=\"\(run.startedAt)\">\(run.startedAt)</time>", "\(run.checks)", DashboardPage.leakCount(run.leaked),
                "\(run.lateRelease)", "\(run.errors)", run.suspect ? "<span class=\"warn\">suspect</span>" : "",
            ])
        }
        let leakRows = scope.activity.leaks.map { leak -> DashboardPage.Row in
            DashboardPage.Row("data-leak=\"\(leak.type)\"", [
                "<a href=\"\(links.type(leak.type, branch: leak.branch, environment: leak.environment))\">\(leak.type)</a>",
                "\(leak.scenario)", DashboardPage.fingerprint(leak.fingerprint), DashboardPage.commitLink(leak.commit, links: links),
                "\(leak.environment)",
            ])
        }
        let now = Date()
        let rules = try store.suppressions(project: project)
        let ruleRows = rules.map { rule -> DashboardPage.Row in
            let expired = !rule.isActive(at: now)
            let expiry: HTML = rule.expiresAt.map { date -> HTML in
                let text = ReportTimestamp.string(from: date)
                return expired ? "<span class=\"warn\">expired</span> <time datetime=\"\(text)\">\(text)</time>"
                               : "<time datetime=\"\(text)\">\(text)</time>"
            } ?? "never"
            let patterns = SuppressionRecord(rule, now: now).patterns
            return DashboardPage.Row("data-suppression=\"\(rule.id ?? 0)\" data-active=\"\(expired ? "false" : "true")\"", [
                "#\(rule.id ?? 0)", "<code class=\"\(expired ? "expired" : "")\">\(patterns)</code>", "\(rule.reason)", expiry,
                "\(rule.createdBy ?? "unknown")",
            ])
        }
        let head = types.head ?? ""
        let body: HTML = """
            \(scope.pickers(action: links.project()))
            <p class="permalink">Link to this view: <a href="\(links.project(branch: scope.branch, environment: scope.environment))">\
            \(links.project(branch: scope.branch, environment: scope.environment))</a></p>
            <h2>Leaking types</h2>
            \(headNote)
            \(DashboardPage.table(["Type", .init("Scenarios", class: "num"), "Direction", "First seen", "Last \(sparklineCommits) commits"], typeRows,
                                  empty: "Nothing leaks at the head of this branch.", id: "types"))
            \(DashboardPage.cutNote(types.types.count > shownTypes.count, shown: shownTypes.count, what: "types"))
            <h2>Compare two commits</h2>
            <form class="pickers" method="get" action="\(links.diff())">\
            <label>Base <input name="base" size="24" value="main" placeholder="branch or commit id"></label>\
            <label>Head <input name="head" size="24" value="\(head)"></label>\
            <input type="hidden" name="environment" value="\(scope.environment)"><button type="submit">Diff</button></form>
            <h2>Newest runs</h2>
            \(DashboardPage.table(["Commit", "Branch", "Environment", "Started", .init("Checks", class: "num"), .init("Leaked", class: "num"),
                                   .init("Late", class: "num"), .init("Errors", class: "num"), "Note"], runRows,
                                  empty: "No runs uploaded yet.", id: "runs"))
            \(DashboardPage.cutNote(scope.activity.runsCut, shown: scope.activity.runs.count, what: "runs"))
            <h2>Newest leaks</h2>
            \(DashboardPage.table(["Type", "Scenario", "Fingerprint", "Commit", "Environment"], leakRows,
                                  empty: "No leaks in the newest runs.", id: "leaks"))
            \(DashboardPage.cutNote(scope.activity.leaksCut, shown: scope.activity.leaks.count, what: "leaks"))
            <h2>Suppressions</h2>
            <p class="note">Leaks a rule covers are reported as suppressed, never as new, until it expires. \
            Add one with <code>leakhistory suppress add</code>.</p>
            \(DashboardPage.table(["Rule", "Covers", "Reason", "Expires", "Added by"], ruleRows,
                                  empty: "No suppressions.", id: "suppressions"))
            """
        return DashboardPage.render(
            title: project, crumbs: [.init(label: "Projects", href: DashboardLinks.projects), .init(label: project)], body: body)
    }
}
