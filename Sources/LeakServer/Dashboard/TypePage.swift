import LeakReport
import LeakStore

/// `/p/{project}/types/{type}?branch=&environment=&limit=`: the type's trend chart along the
/// branch, and its leaks at the branch head, one row per root cause (fingerprint group) with the
/// retain path, the scenarios, and the commits that introduced them. A type name holding `/` comes as `?type=` (see `DashboardLinks.type`).
enum TypePage {
    /// Commits the chart spans unless `?limit=` (1 to 1,000) says otherwise.
    static let defaultCommits = 100

    static func render(_ request: Request, store: any LeakStorage, project: String) throws -> Response {
        let type = try QueryInput.text(request.query["type"] ?? request.parameter("type"), field: "type")
        let scope = try DashboardScope(request, store: store, project: project)
        let links = scope.links
        let limit = request.query["limit"] == nil ? defaultCommits : try QueryInput.limit(request)
        let points = try store.trend(project: project, type: type, branch: scope.branch, environment: scope.environment,
                                    limit: limit)
        let leaks = try store.typeLeaks(project: project, type: type, branch: scope.branch, environment: scope.environment,
                                        limit: DashboardPage.rowLimit + 1)
        // One row per root cause: the type's leaking scenarios grouped by fingerprint, each
        // group introduced where its earliest scenario began leaking.
        var head: [LeakKey: KeyObservation] = [:]
        var introducedBy: [LeakKey: String] = [:]
        var flaky: Set<LeakKey> = []
        for leak in leaks.prefix(DashboardPage.rowLimit) {
            let key = LeakKey(scenario: leak.scenario, type: type)
            head[key] = KeyObservation(state: .leaked, file: leak.file, line: leak.line, fingerprint: leak.fingerprint,
                                       retainPath: leak.retainPath, message: leak.message)
            introducedBy[key] = leak.introducedBy
            if leak.state == .flaky { flaky.insert(key) }
        }
        let groups = LeakDiff(unverifiedHead: head).groups
        let leakRows = groups.map { group -> DashboardPage.Row in
            let keys = group.occurrences.map { LeakKey(scenario: $0.scenario, type: $0.type) }
            let commits = Array(Set(keys.compactMap { introducedBy[$0] }))
            let note: HTML = keys.contains(where: flaky.contains) ? " <span class=\"warn\">flaky</span>" : ""
            let introduced: HTML = commits.isEmpty ? "unknown"
                : HTML.joined(commits.sorted().map { DashboardPage.commitLink($0, links: links) }, separator: ", ")
            return DashboardPage.Row("data-fingerprint=\"\(group.fingerprint ?? "")\"",
                                     GroupCells.cells(group, links: links, branch: scope.branch, environment: scope.environment,
                                                      notes: note) + [introduced])
        }
        let chart: HTML = points.isEmpty
            ? "<p class=\"empty\" id=\"chart\">No commits of <code>\(scope.branch)</code> in <code>\(scope.environment)</code> have data.</p>"
            : """
                <figure id="chart">\(TrendChartSVG.chart(points, type: type, branch: scope.branch, links: links))\
                <figcaption class="note">Leaking scenarios per commit, oldest left; \(points.count) commits. \
                Each point links to its commit.</figcaption></figure>
                """
        let histories = try leaks.prefix(DashboardPage.historyScenarios).map {
            try store.scenarioHistory(project: project, scenario: $0.scenario, branch: scope.branch, environment: scope.environment,
                                      limit: DashboardPage.historyCommits)
        }
        let history: HTML = histories.isEmpty ? "" : """
            <h2>Scenario history</h2>
            \(DashboardPage.scenarioHistory(histories, type: type, links: links, id: "scenario-history"))
            """
        let here = links.type(type, branch: scope.branch, environment: scope.environment)
        let body: HTML = """
            \(scope.pickers(action: links.typePath(type),
                            keep: type.contains("/") ? [(name: "type", value: type)] : []))
            <p class="permalink">Link to this view: <a href="\(here)">\(here)</a></p>
            <h2>Trend along <code>\(scope.branch)</code></h2>
            \(chart)
            <h2>Leaks at the head</h2>
            \(DashboardPage.table(GroupCells.columns + ["Introduced by"], leakRows,
                                  empty: "This type does not leak at the head of the branch.", id: "type-leaks"))
            \(DashboardPage.cutNote(leaks.count > DashboardPage.rowLimit, shown: DashboardPage.rowLimit, what: "leaks"))
            \(history)
            """
        return DashboardPage.render(
            title: type,
            crumbs: [.init(label: "Projects", href: DashboardLinks.projects),
                     .init(label: project, href: links.project(branch: scope.branch, environment: scope.environment)),
                     .init(label: RetainPathStep.shortName(type))],
            body: body)
    }
}
