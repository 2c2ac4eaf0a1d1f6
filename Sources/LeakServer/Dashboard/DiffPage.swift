import LeakReport
import LeakStore

/// `/p/{project}/diff?base=&head=&environment=`: the CLI's diff as a page — new, fixed,
/// persisting, flaky, late releases, suppressed and not run, each with the leak's place,
/// fingerprint, retain path and the commit that introduced it. Without both commits it shows
/// the form that asks for them.
enum DiffPage {
    /// The sections in the order people read them, with their headings.
    static let sections: [(category: LeakDiff.Category, heading: String)] = [
        (.new, "New"), (.fixed, "Fixed"), (.persisting, "Persisting"), (.flaky, "Flaky"),
        (.lateRelease, "Late releases"), (.suppressed, "Suppressed"), (.notRun, "Not run at head"),
        (.inherited, "Inherited (came in without data)"), (.known, "Known issues"), (.unverified, "Unverified (no base)"),
    ]

    static func render(_ request: Request, store: any LeakStorage, project: String) throws -> Response {
        let scope = try DashboardScope(request, store: store, project: project)
        let links = scope.links
        let crumbs: [DashboardPage.Crumb] = [
            .init(label: "Projects", href: DashboardLinks.projects),
            .init(label: project, href: links.project(branch: scope.branch, environment: scope.environment)),
            .init(label: "Diff"),
        ]
        let form = scope.pickers(action: links.diff(), withBranch: false, leading: [
            "<label>Base <input name=\"base\" size=\"42\" value=\"\(request.query["base"])\" placeholder=\"40-digit commit id\"></label>",
            "<label>Head <input name=\"head\" size=\"42\" value=\"\(request.query["head"])\" placeholder=\"40-digit commit id\"></label>",
        ])
        guard request.query["base"] != nil || request.query["head"] != nil else {
            return DashboardPage.render(title: "Diff", crumbs: crumbs, body: """
                \(form)<p class="empty">Give a base and a head commit to compare.</p>
                """)
        }
        let base = try QueryInput.commit(request.query["base"], field: "base")
        let head = try QueryInput.commit(request.query["head"], field: "head")
        let diff = try store.diff(project: project, base: base, head: head, environment: scope.environment)
        let counts = HTML.joined(sections.map { section -> HTML in
            "<li data-category=\"\(section.category.rawValue)\">\(section.heading): <strong>\(diff.counts[section.category.rawValue] ?? 0)</strong></li>"
        })
        let bodies = HTML.joined(sections.map { section -> HTML in
            let entries = diff.entries.filter { $0.category == section.category }
            guard !entries.isEmpty else { return "" }
            let rows = entries.prefix(DashboardPage.rowLimit).map { row($0, links: links, scope: scope) }
            return """
                <h2 id="\(section.category.rawValue)">\(section.heading) (\(entries.count))</h2>
                \(DashboardPage.table(["Type", "Scenario", "Where", "Fingerprint", "Retain path", "First seen", "Note"], rows,
                                      empty: "", id: "diff-\(section.category.rawValue)"))
                \(DashboardPage.cutNote(entries.count > DashboardPage.rowLimit, shown: DashboardPage.rowLimit, what: section.heading.lowercased()))
                """
        }, separator: "\n")
        let sides: HTML = """
            <p>Base \(DashboardPage.commitLink(diff.base?.commit ?? base, links: links)) (\(diff.base?.runs ?? 0) run\(diff.base?.runs == 1 ? "" : "s")) \
            → head \(DashboardPage.commitLink(diff.head.commit, links: links)) (\(diff.head.runs) run\(diff.head.runs == 1 ? "" : "s")) \
            in <code>\(diff.environment)</code></p>
            """
        let warning: HTML = (diff.base?.runs ?? 0) == 0 || diff.head.runs == 0
            ? "<p class=\"problem\">A side has no usable runs in this environment: nothing can be compared there.</p>" : ""
        let here = links.diff(base: base, head: head, environment: scope.environment)
        let body: HTML = """
            \(form)
            \(sides)\(warning)
            <p class="permalink">Link for a pull request: <a href="\(here)">\(here)</a></p>
            <ul class="counts">\(counts)</ul>
            \(bodies)
            """
        return DashboardPage.render(title: "Diff \(base.prefix(7))..\(head.prefix(7))", crumbs: crumbs, body: body)
    }

    private static func row(_ entry: LeakDiff.Entry, links: DashboardLinks, scope: DashboardScope) -> HTML {
        let path = entry.retainPath.map { RetainPathStep.readable($0, leakedType: entry.type) } ?? ""
        let firstSeen: HTML = entry.firstSeen.map { DashboardPage.commitLink($0, links: links) } ?? ""
        let note = entry.suppressedBecause.map { "suppressed: \($0)" }
            ?? entry.inheritedFrom.map { "leaks on the base branch at \($0.prefix(10))" } ?? entry.message ?? ""
        return """
            <tr data-category="\(entry.category.rawValue)" data-type="\(entry.type)">\
            <td><a href="\(links.type(entry.type, branch: scope.branch, environment: scope.environment))">\(entry.type)</a></td>\
            <td>\(entry.scenario)</td><td><code>\(entry.file):\(entry.line)</code></td><td><code>\(entry.fingerprint)</code></td>\
            <td class="path">\(path)</td><td>\(firstSeen)</td><td>\(note)</td></tr>
            """
    }
}
