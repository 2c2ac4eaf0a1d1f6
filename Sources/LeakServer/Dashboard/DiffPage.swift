import LeakReport
import LeakStore

/// `/p/{project}/diff?base=&head=&environment=`: the CLI's diff as a page, the link a pull
/// request carries. Base and head may be full ids, branch names or unique id prefixes; the
/// base side is the merge-base of the two along the uploaded commits' parents, or its nearest
/// first-parent ancestor with an upload — as the CLI picks it with git — and the page names
/// what each was resolved to. One row per root cause (fingerprint group), categories in the
/// CLI's order. Without both revisions it shows the form that asks for them.
enum DiffPage {
    static func render(_ request: Request, store: any LeakStorage, project: String) throws -> Response {
        var scope = try DashboardScope(request, store: store, project: project, head: request.query["head"])
        let links = scope.links
        let crumbs: [DashboardPage.Crumb] = [
            .init(label: "Projects", href: DashboardLinks.projects),
            .init(label: project, href: links.project(branch: scope.branch, environment: scope.environment)),
            .init(label: "Diff"),
        ]
        let form = scope.pickers(action: links.diff(), withBranch: false, leading: [
            "<label>Base <input name=\"base\" size=\"24\" value=\"\(request.query["base"])\" placeholder=\"main or 3f2a9c1\"></label>",
            "<label>Head <input name=\"head\" size=\"24\" value=\"\(request.query["head"])\" placeholder=\"feature branch or id\"></label>",
        ])
        guard request.query["base"] != nil || request.query["head"] != nil else {
            return DashboardPage.render(title: "Diff", crumbs: crumbs, body: """
                \(form)<p class="empty">Give a base and a head to compare: branch names, commit ids or their first digits.</p>
                """)
        }
        let baseText = try QueryInput.text(request.query["base"], field: "base")
        let headText = try QueryInput.text(request.query["head"], field: "head")
        var comparison = try store.compare(project: project, base: baseText, head: headText, environment: scope.environment)
        let head = try commit(comparison.head, asked: headText, field: "head", project: project)
        // Left to choose, the environment is one the head has usable runs in: the branch's newest run
        // may be at another commit (a tip reset to an older one), whose environment the head lacks.
        if request.query["environment"] == nil, let runs = try store.commit(project: project, sha: head, limit: 1, cursor: nil)?.runs,
           !runs.contains(where: { $0.environment == scope.environment && !$0.suspect }),
           let chosen = runs.last(where: { !$0.suspect })?.environment {
            scope.environment = chosen
            comparison = try store.compare(project: project, base: baseText, head: headText, environment: chosen)
        }
        let base = try commit(comparison.base, asked: baseText, field: "base", project: project)
        let compared = comparison.compared ?? comparison.mergeBase ?? base
        // No base with data: the head's leaks, unverified — as the CLI lists them.
        let diff = try store.diff(project: project, base: comparison.compared, head: head, environment: scope.environment,
                                  after: comparison.after)
        let groups = LeakGroup.grouping(diff.leaks.entries)

        // New, persisting and fixed always; the other categories when they hold something.
        let counts = HTML.joined(LeakDiff.Category.printOrder.compactMap { category -> HTML? in
            let count = diff.leaks.counts[category] ?? 0
            guard count > 0 || [.new, .persisting, .fixed].contains(category) else { return nil }
            return "<li data-category=\"\(category.rawValue)\"><strong>\(count)</strong> \(category.countLabel)</li>"
        })
        let sections = HTML.joined(LeakDiff.Category.printOrder.map { category -> HTML in
            let inCategory = groups.filter { $0.category == category }
            guard !inCategory.isEmpty else { return "" }
            let rows = inCategory.prefix(DashboardPage.rowLimit).map { row($0, links: links, scope: scope) }
            return """
                <h2 id="\(category.rawValue)">\(category.heading) (\(LeakGroup.tally(inCategory)))</h2>
                \(DashboardPage.table(GroupCells.columns + ["First seen"],
                                      rows, empty: "", id: "diff-\(category.rawValue)"))
                \(DashboardPage.cutNote(inCategory.count > DashboardPage.rowLimit, shown: DashboardPage.rowLimit, what: "root causes"))
                """
        }, separator: "\n")
        let here = links.diff(base: compared, head: head, environment: scope.environment)
        let body: HTML = """
            \(form)
            \(resolution(comparison, baseText: baseText, headText: headText, compared: compared, diff: diff,
                         environment: scope.environment, links: links))
            <p class="permalink">Link for a pull request: <a href="\(here)">\(here)</a></p>
            <ul class="counts">\(counts)</ul>
            \(sections)
            """
        return DashboardPage.render(title: "Diff \(compared.prefix(7))..\(head.prefix(7))", crumbs: crumbs, body: body)
    }

    /// The commit a side resolved to, or a 400 (ambiguous prefix) or 404 (unknown name) that
    /// says what was looked for.
    private static func commit(_ resolution: RevisionComparison.Resolution, asked: String, field: String,
                               project: String) throws -> String {
        switch resolution {
        case let .found(commit, _): return commit
        case let .ambiguous(matches):
            throw HTTPFailure.badRequest("\(field): \"\(QueryInput.clip(asked))\" is the start of several uploaded commits "
                                         + "(\(matches.map { String($0.prefix(12)) }.joined(separator: ", "))); give more digits")
        case .unknown:
            throw HTTPFailure.notFound("\(field): project \"\(project)\" has no branch named \"\(QueryInput.clip(asked))\" and no "
                                       + "uploaded commit whose id starts so. The server knows no git tags: give a tag's commit id.")
        }
    }

    /// What each side was resolved to, in words: the branch head, the merge-base, the base
    /// compared with and how far back it is.
    private static func resolution(_ comparison: RevisionComparison, baseText: String, headText: String, compared: String,
                                   diff: CommitDiff, environment: String, links: DashboardLinks) -> HTML {
        func side(_ resolution: RevisionComparison.Resolution, _ asked: String) -> HTML {
            guard case let .found(commit, match) = resolution else { return "" }
            let link = DashboardPage.commitLink(commit, links: links)
            switch match {
            case .commit: return link
            case let .branch(branch): return "<code>\(branch)</code> (its newest upload, \(link))"
            case .prefix: return "<code>\(asked)</code> (\(link))"
            }
        }
        func runs(_ count: Int) -> HTML { "\(count) run\(count == 1 ? "" : "s")" }
        var lines: [HTML] = [
            "<li>Head: \(side(comparison.head, headText)), \(runs(diff.head.runs)) in <code>\(environment)</code></li>",
            "<li>Base asked for: \(side(comparison.base, baseText))</li>",
        ]
        if comparison.onBaseBranch {
            lines.append("<li>The head is on the base branch itself: it is compared with its first parent's line.</li>")
        } else if let mergeBase = comparison.mergeBase {
            lines.append("<li>Merge-base along the uploaded parents: \(DashboardPage.commitLink(mergeBase, links: links))</li>")
        } else {
            lines.append("<li class=\"warn\">The uploaded history holds no common ancestor of the two: the base is compared as it is.</li>")
        }
        if let distance = comparison.distance {
            let how: HTML = distance == 0 ? (comparison.onBaseBranch ? "the first parent" : "the merge-base itself")
                : "\(distance) first-parent commit\(distance == 1 ? "" : "s") before it, the nearest with an upload"
            lines.append("<li>Compared with: \(DashboardPage.commitLink(compared, links: links)) (\(how)), \(runs(diff.base?.runs ?? 0))</li>")
        } else {
            lines.append("""
                <li class="problem">No base: neither it nor its first-parent ancestors have a usable run in \
                <code>\(environment)</code>; what leaks at the head is listed unverified.</li>
                """)
        }
        let warning: HTML = diff.head.runs == 0
            ? "<p class=\"problem\">The head has no usable runs in this environment: nothing can be compared there.</p>" : ""
        return "<ul class=\"sides\" id=\"sides\">\(HTML.joined(lines))</ul>\(warning)"
    }

    private static func row(_ group: LeakGroup, links: DashboardLinks, scope: DashboardScope) -> DashboardPage.Row {
        let inherited: HTML = group.inheritedFrom.map {
            "<p class=\"covered\">Leaks on the base branch at \(DashboardPage.commitLink($0, links: links))</p>"
        } ?? ""
        let firstSeen: HTML = group.firstSeen.map { DashboardPage.commitLink($0, links: links) } ?? "<span class=\"note\">—</span>"
        // The gate's verdict explains itself beside the leak (`LeakDiff.Entry.evidence`).
        let evidence: HTML = group.evidence.map { "<p class=\"evidence\" data-evidence>Why \(group.category.rawValue): \($0.summary)</p>" } ?? ""
        return DashboardPage.Row(
            "data-category=\"\(group.category.rawValue)\" data-fingerprint=\"\(group.fingerprint)\" data-type=\"\(group.types.joined(separator: " "))\"",
            GroupCells.cells(group, links: links, branch: scope.branch, environment: scope.environment,
                             notes: "\(evidence)\(suppression(group.suppression))\(inherited)") + [firstSeen])
    }

    /// The rule next to what it covers, or the lapsed rule next to the leak it no longer hides.
    static func suppression(_ note: LeakDiff.SuppressionNote?) -> HTML {
        guard let note else { return "" }
        return note.expired
            ? "<p class=\"covered warn\" data-suppression=\"expired\">Suppression \(note.summary): no longer applies</p>"
            : "<p class=\"covered\" data-suppression=\"active\">Suppressed by \(note.summary)</p>"
    }
}
