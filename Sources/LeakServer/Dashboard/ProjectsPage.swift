import LeakStore

/// `/`: the projects this server holds, each linked to its page.
enum ProjectsPage {
    static func render(store: any LeakStorage) throws -> Response {
        let names = try store.projectNames(limit: DashboardPage.rowLimit + 1)
        let items = names.prefix(DashboardPage.rowLimit).map { name -> HTML in
            "<li><a href=\"\(DashboardLinks(project: name).project())\">\(name)</a></li>"
        }
        let body: HTML = items.isEmpty
            ? "<p class=\"empty\" id=\"projects\">No projects yet. Create one with <code>leakhistory-server projects create NAME</code>.</p>"
            : """
                <ul id="projects">\(HTML.joined(items, separator: "\n"))</ul>
                \(DashboardPage.cutNote(names.count > DashboardPage.rowLimit, shown: DashboardPage.rowLimit, what: "projects"))
                """
        return DashboardPage.render(title: "Projects", crumbs: [.init(label: "Projects")], body: body)
    }
}
