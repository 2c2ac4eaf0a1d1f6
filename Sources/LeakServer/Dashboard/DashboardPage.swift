import LeakReport
import LeakStore

/// The frame every dashboard page shares: the document, its inline style sheet (light and
/// dark, fluid down to a phone), the breadcrumb trail, and the pieces pages repeat (pickers,
/// notes on cut lists, short commit ids). Nothing is loaded from elsewhere.
enum DashboardPage {
    /// A step of the breadcrumb trail; the last one is the current page and has no link.
    struct Crumb {
        var label: String
        var href: String?
    }

    /// How many rows a list shows before it says it was cut.
    static let rowLimit = 50

    /// The whole document around `body`.
    static func render(title: String, crumbs: [Crumb], body: HTML, status: Int = 200) -> Response {
        let trail = HTML.joined(crumbs.map { crumb -> HTML in
            guard let href = crumb.href else { return "<span aria-current=\"page\">\(crumb.label)</span>" }
            return "<a href=\"\(href)\">\(crumb.label)</a>"
        }, separator: " <span class=\"sep\">/</span> ")
        let page: HTML = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <link rel="icon" href="data:,">
            <title>\(title) · LeakHistory</title>
            <style>\(HTML(trusted: style))</style>
            </head>
            <body>
            <header><nav aria-label="Breadcrumb">\(trail)</nav></header>
            <main>
            <h1>\(title)</h1>
            \(body)
            </main>
            </body>
            </html>
            """
        return Response.html(page.rendered, status: status)
    }

    /// A page for a failed request: what went wrong, and a link back.
    static func problem(status: Int, message: String, back: Crumb) -> Response {
        let title = status == 404 ? "Not found" : (status < 500 ? "Cannot show this page" : "Something went wrong")
        let body: HTML = """
            <p class="problem" data-status="\(status)">\(message)</p>
            <p><a href="\(back.href ?? DashboardLinks.projects)">Back to \(back.label)</a></p>
            """
        return render(title: title, crumbs: [Crumb(label: "Projects", href: DashboardLinks.projects), Crumb(label: title)],
                      body: body, status: status)
    }

    /// A plain GET form choosing the branch and environment; `keep` travels along in hidden
    /// fields (a type's name), `leading` fields come first (a diff's base and head).
    static func pickers(action: String, branches: [String]?, branch: String?, environments: [String], environment: String,
                        keep: [(name: String, value: String)] = [], leading: [HTML] = []) -> HTML {
        func select(_ name: String, _ label: String, _ options: [String], _ chosen: String) -> HTML {
            let all = options.contains(chosen) ? options : [chosen] + options
            let items = HTML.joined(all.map { option -> HTML in
                "<option value=\"\(option)\"\(HTML(trusted: option == chosen ? " selected" : ""))>\(option)</option>"
            })
            return "<label>\(label) <select name=\"\(name)\">\(items)</select></label>"
        }
        var fields: [HTML] = leading + keep.map { "<input type=\"hidden\" name=\"\($0.name)\" value=\"\($0.value)\">" }
        if let branches, let branch { fields.append(select("branch", "Branch", branches, branch)) }
        fields.append(select("environment", "Environment", environments, environment))
        return """
            <form class="pickers" method="get" action="\(action)">\(HTML.joined(fields, separator: " "))\
            <button type="submit">Show</button></form>
            """
    }

    /// "Showing the first 50 …": said under a list that was cut.
    static func cutNote(_ cut: Bool, shown: Int, what: String) -> HTML {
        cut ? "<p class=\"note\" data-cut=\"\(what)\">Showing the first \(shown) \(what); the rest are not listed.</p>" : ""
    }

    /// A commit id as a short monospace link with the full id in its title.
    static func commitLink(_ sha: String, links: DashboardLinks) -> HTML {
        "<a class=\"sha\" href=\"\(links.commit(sha))\" title=\"\(sha)\">\(String(sha.prefix(10)))</a>"
    }

    /// A column of `table`: its heading and the class its cells carry (`num`, `path`, `where`).
    struct Column: ExpressibleByStringInterpolation {
        var name: String
        var cellClass: String?

        init(_ name: String, class cellClass: String? = nil) {
            self.name = name
            self.cellClass = cellClass
        }

        init(stringLiteral name: String) { self.init(name) }

        init(stringInterpolation: DefaultStringInterpolation) { self.init(String(stringInterpolation: stringInterpolation)) }
    }

    /// A row of `table`: attributes for its `<tr>` (`data-run="3"`) and one cell per column.
    struct Row {
        var attributes: HTML
        var cells: [HTML]

        init(_ attributes: HTML = "", _ cells: [HTML]) {
            self.attributes = attributes
            self.cells = cells
        }
    }

    /// A table with a header row. On a narrow screen each row becomes a card whose cells are
    /// labelled with their column (`data-label`), so nothing scrolls sideways.
    static func table(_ columns: [Column], _ rows: [Row], empty: String, id: String) -> HTML {
        guard !rows.isEmpty else { return "<p class=\"empty\" id=\"\(id)\">\(empty)</p>" }
        let head = HTML.joined(columns.map { "<th scope=\"col\">\($0.name)</th>" })
        let body = HTML.joined(rows.map { row -> HTML in
            let cells = HTML.joined(zip(columns, row.cells).map { column, cell -> HTML in
                let cellClass: HTML = column.cellClass.map { " class=\"\($0)\"" } ?? ""
                // One wrapper, so that on a phone the label and the content are the card row's two columns.
                return "<td data-label=\"\(column.name)\"\(cellClass)><div>\(cell)</div></td>"
            })
            let attributes: HTML = row.attributes.rendered.isEmpty ? "" : " \(row.attributes)"
            return "<tr\(attributes)>\(cells)</tr>"
        }, separator: "\n")
        return "<table class=\"cards\" id=\"\(id)\"><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table>"
    }

    /// A count, marked as a leak when it is not zero.
    static func leakCount(_ count: Int) -> HTML {
        count > 0 ? "<span class=\"leak\">\(count)</span>" : "\(count)"
    }

    /// A retain path as a compact chain (`Coordinator.children[0] → Store.cache → Cache`), as
    /// `RetainPathStep.readable` prints it (a possible one says so, and is drawn muted), or a
    /// muted note when none was reported.
    static func retainPath(_ path: String?, proven: Bool = true) -> HTML {
        guard let path, !path.isEmpty else { return "<span class=\"note\">none reported</span>" }
        return proven ? "<span class=\"chain\">\(path)</span>" : "<span class=\"chain possible\">\(path)</span>"
    }

    /// `file.swift:42` on one line, the full path in its title.
    static func place(file: String, line: Int) -> HTML {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return "<code class=\"where\" title=\"\(file):\(line)\">\(name):\(line)</code>"
    }

    /// A fingerprint, which is long and unbroken: shown short, whole in its title.
    static func fingerprint(_ fingerprint: String?) -> HTML {
        guard let fingerprint else { return "<span class=\"note\">none</span>" }
        return "<code class=\"fingerprint\" title=\"\(fingerprint)\">\(fingerprint.count > 16 ? String(fingerprint.prefix(12)) + "…" : fingerprint)</code>"
    }

    /// Scenarios whose history a page shows (each is one query), and the commits each spans.
    static let historyScenarios = 8
    static let historyCommits = 20

    /// A table of scenarios, each with its states at its newest commits (oldest left), one
    /// linked square per commit: red leaked, amber flaky or late, green clean, grey error.
    /// `type` narrows each commit to that type's key.
    static func scenarioHistory(_ histories: [ScenarioHistory], type: String?, links: DashboardLinks, id: String) -> HTML {
        let rows = histories.map { history -> Row in
            let squares = HTML.joined(history.commits.compactMap { commit -> HTML? in
                let keys = commit.keys.filter { type == nil || $0.type == type }
                guard !keys.isEmpty else { return nil }
                let state = [KeyState.leaked, .flaky, .lateRelease, .error, .clean].first { wanted in keys.contains { $0.state == wanted } }!
                let detail = keys.map { "\($0.type): \($0.state.rawValue), \($0.leaked) of \($0.checked) leaked" }.joined(separator: "; ")
                return "<a class=\"state \(state.rawValue)\" href=\"\(links.commit(commit.commit))\" title=\"\(String(commit.commit.prefix(10))) \(detail)\" data-state=\"\(state.rawValue)\" aria-label=\"\(String(commit.commit.prefix(10))) \(detail)\"></a>"
            })
            return Row("data-scenario=\"\(history.scenario)\"", ["\(history.scenario)", "<span class=\"states\">\(squares)</span>"])
        }
        return table(["Scenario", "Newest \(historyCommits) commits, oldest left"], rows, empty: "No scenario history.", id: id)
    }

    private static let style = """
        :root{--bg:#fff;--fg:#1d2330;--muted:#5d6678;--line:#d9dee8;--card:#f5f7fb;--accent:#2458c6;\
        --leak:#c62f2f;--ok:#23804a;--warn:#9a6a00;color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#12151c;--fg:#e4e8f0;--muted:#9aa3b5;--line:#2e3545;\
        --card:#1b2029;--accent:#7ea6ff;--leak:#ff7b7b;--ok:#5fd38d;--warn:#e8b84a}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
        header{padding:.6rem 1rem;border-bottom:1px solid var(--line);background:var(--card);overflow-wrap:anywhere}
        header .sep{color:var(--muted)}
        main{max-width:1100px;margin:0 auto;padding:1rem}
        h1{font-size:1.4rem;margin:.2rem 0 1rem;overflow-wrap:anywhere}
        h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
        a{color:var(--accent)}
        code,.sha{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
        code,.path,.chain,td,li,p{overflow-wrap:anywhere}
        table{border-collapse:collapse;width:100%}
        th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
        th{font-weight:600;color:var(--muted);font-size:.85rem;white-space:nowrap}
        td .sha,td time,.where,.fingerprint{white-space:nowrap}
        .chain{font-family:ui-monospace,monospace;font-size:.85rem}
        .chain.possible{font-style:italic;color:var(--muted)}
        details summary{cursor:pointer;color:var(--muted);font-size:.85rem}
        details pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem;margin:.3rem 0;padding:.4rem;background:var(--card)}
        details ul{margin:.3rem 0;padding-left:1.2rem}
        .covered,.evidence{font-size:.85rem;margin:.2rem 0 0}
        table.cards td:first-child{min-width:12rem}
        @media (max-width:48rem){
        table.cards,table.cards tbody,table.cards tr{display:block;width:100%}
        table.cards thead{display:none}
        table.cards tr{border:1px solid var(--line);border-radius:6px;margin:0 0 .6rem;padding:.3rem .5rem}
        table.cards td{display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:.5rem;border:0;padding:.15rem 0;text-align:left;min-width:0}
        table.cards td:first-child{min-width:0}
        table.cards td::before{content:attr(data-label);color:var(--muted);font-size:.8rem}
        td .where{white-space:normal;overflow-wrap:anywhere}
        }
        .num{text-align:right;font-variant-numeric:tabular-nums}
        .leak{color:var(--leak);font-weight:600}.ok{color:var(--ok)}.warn{color:var(--warn)}
        .note,.empty{color:var(--muted)}
        .problem{font-size:1.05rem;padding:.8rem 1rem;background:var(--card);border-left:4px solid var(--leak)}
        .pickers{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end;margin:0 0 1rem}
        .pickers label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted);min-width:0;max-width:100%}
        select,input,button{font:inherit;padding:.25rem .4rem;max-width:100%}
        .chart{width:100%;height:auto;max-width:720px;display:block;background:var(--card);border-radius:6px}
        .chart .axis{stroke:var(--muted)}.chart .grid{stroke:var(--line);stroke-dasharray:4 4}
        .chart .tick{fill:var(--muted);font-size:11px;font-family:ui-monospace,monospace}
        .chart .line,.spark .line{fill:none;stroke:var(--accent);stroke-width:2}
        .spark .line{stroke-width:1.5}
        .point{fill:var(--ok)}.point.leaking{fill:var(--leak)}
        .chart a:hover .point{stroke:var(--fg);stroke-width:2}
        .path{font-family:ui-monospace,monospace;font-size:.85rem}
        .counts{display:flex;flex-wrap:wrap;gap:.5rem;padding:0;list-style:none}
        .counts li{background:var(--card);border:1px solid var(--line);border-radius:4px;padding:.2rem .6rem}
        .permalink{font-size:.85rem}
        .sides{padding-left:1.2rem;margin:.4rem 0}
        .states{display:flex;flex-wrap:wrap;gap:2px}
        .state{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;background:var(--ok)}
        .state.leaked{background:var(--leak)}.state.flaky,.state.lateRelease{background:var(--warn)}.state.error{background:var(--muted)}
        .expired{color:var(--muted);text-decoration:line-through}
        """
}
