import LeakReport

/// The cells every page draws for one root cause (a `LeakGroup`): the leak — its types linked
/// to their pages, the fingerprint, notes such as the suppression that covers it, the message
/// folded — the scenarios (folded when more than one, each with its place), the first
/// occurrence's `file:line`, and the retain path as a chain.
enum GroupCells {
    static let columns: [DashboardPage.Column] = ["Leak", "Scenarios", "Where", .init("Retain path", class: "path")]

    static func cells(_ group: LeakGroup, links: DashboardLinks, branch: String?, environment: String,
                      notes: HTML = "") -> [HTML] {
        let types = HTML.joined(group.types.map { type -> HTML in
            "<a href=\"\(links.type(type, branch: branch, environment: environment))\">\(type)</a>"
        }, separator: ", ")
        let list = HTML.joined(group.occurrences.map { occurrence -> HTML in
            let type: HTML = group.types.count > 1 ? " · \(occurrence.type)" : ""
            return "<li>\(occurrence.scenario)\(type) \(DashboardPage.place(file: occurrence.file, line: occurrence.line))</li>"
        })
        let scenarios: HTML = group.occurrences.count == 1
            ? "\(group.scenarios[0])"
            : "<details><summary>\(group.scenarios.count) scenario\(group.scenarios.count == 1 ? "" : "s")</summary><ul>\(list)</ul></details>"
        let message: HTML = group.message.map { "<details><summary>Message</summary><pre>\($0)</pre></details>" } ?? ""
        return [
            "\(types) \(DashboardPage.fingerprint(group.fingerprint))\(notes)\(message)", scenarios,
            DashboardPage.place(file: group.file, line: group.line),
            DashboardPage.retainPath(group.readablePath, proven: RetainPathStep.isProven(group.retainPath ?? [])),
        ]
    }
}
