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

    /// A table with a header row, wrapped so that it scrolls sideways on a narrow screen.
    static func table(_ headers: [String], _ rows: [HTML], empty: String, id: String) -> HTML {
        guard !rows.isEmpty else { return "<p class=\"empty\" id=\"\(id)\">\(empty)</p>" }
        let head = HTML.joined(headers.map { "<th scope=\"col\">\($0)</th>" })
        return """
            <div class="scroll"><table id="\(id)"><thead><tr>\(head)</tr></thead>\
            <tbody>\(HTML.joined(rows, separator: "\n"))</tbody></table></div>
            """
    }

    private static let style = """
        :root{--bg:#fff;--fg:#1d2330;--muted:#5d6678;--line:#d9dee8;--card:#f5f7fb;--accent:#2458c6;\
        --leak:#c62f2f;--ok:#23804a;--warn:#9a6a00;color-scheme:light dark}
        @media (prefers-color-scheme:dark){:root{--bg:#12151c;--fg:#e4e8f0;--muted:#9aa3b5;--line:#2e3545;\
        --card:#1b2029;--accent:#7ea6ff;--leak:#ff7b7b;--ok:#5fd38d;--warn:#e8b84a}}
        *{box-sizing:border-box}
        body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
        header{padding:.6rem 1rem;border-bottom:1px solid var(--line);background:var(--card)}
        header .sep{color:var(--muted)}
        main{max-width:1100px;margin:0 auto;padding:1rem}
        h1{font-size:1.4rem;margin:.2rem 0 1rem;overflow-wrap:anywhere}
        h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
        a{color:var(--accent)}
        code,.sha{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
        code,.path{overflow-wrap:anywhere}
        .scroll{overflow-x:auto}
        table{border-collapse:collapse;width:100%;min-width:32rem}
        th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
        th{font-weight:600;color:var(--muted);font-size:.85rem;white-space:nowrap}
        td .sha,td time{white-space:nowrap}
        .num{text-align:right;font-variant-numeric:tabular-nums}
        .leak{color:var(--leak);font-weight:600}.ok{color:var(--ok)}.warn{color:var(--warn)}
        .note,.empty{color:var(--muted)}
        .problem{font-size:1.05rem;padding:.8rem 1rem;background:var(--card);border-left:4px solid var(--leak)}
        .pickers{display:flex;flex-wrap:wrap;gap:.6rem;align-items:end;margin:0 0 1rem}
        .pickers label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted)}
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
        """
}
