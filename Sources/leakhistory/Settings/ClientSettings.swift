import Foundation
import LeakReport

/// Where the server is and who we are to it: from flags, else `LEAKHISTORY_*` environment
/// variables, else `.leakhistory.json` at the repository root.
///
/// ```json
/// {"server": "http://leakhistory.internal:8080", "project": "app", "environment": "linux-swift6.3"}
/// ```
struct ClientSettings: Sendable {
    var server: URL
    var token: String?
    var project: String
    var environment: String
    /// Where people open the dashboard, when it is not the server's own address (a proxy in
    /// front of it): `--dashboard-url`, `LEAKHISTORY_DASHBOARD_URL` or `dashboard` in the file.
    var dashboard: URL?

    /// The options every server command takes.
    static let options: [CommandSpec.Option] = [
        .init(name: "--server", valueName: "url", help: "The LeakHistory server (LEAKHISTORY_SERVER)."),
        .init(name: "--token", valueName: "token", help: "A token of the project (LEAKHISTORY_TOKEN); uploads need a write token."),
        .init(name: "--project", valueName: "name", help: "The project (LEAKHISTORY_PROJECT)."),
        .init(name: "--environment", valueName: "name", help: "What the tests ran on, e.g. linux-swift6.3 (LEAKHISTORY_ENVIRONMENT; default: default)."),
    ]

    /// The settings from flags, environment and file. Without a project, the server is asked
    /// which projects it has (`GET /v1/projects`): `default` when it is the only one, else a
    /// message that names them.
    static func resolve(_ arguments: ParsedArguments, environment: [String: String], repositoryRoot: String?)
        async throws(CommandFailure) -> ClientSettings {
        let file = try fileSettings(repositoryRoot)
        func pick(_ flag: String, _ variable: String, _ key: String) -> String? {
            arguments.value(flag) ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 } ?? file[key]
        }
        guard let serverText = pick("--server", "LEAKHISTORY_SERVER", "server") else {
            throw CommandFailure(
                "No server given. Pass --server http://host:8080, set LEAKHISTORY_SERVER, or add \"server\" to .leakhistory.json at the repository root.",
                code: .usage)
        }
        guard let server = URL(string: serverText), let scheme = server.scheme, ["http", "https"].contains(scheme), server.host != nil else {
            throw CommandFailure("The server '\(serverText)' is not an http:// or https:// URL.", code: .usage)
        }
        var dashboard: URL?
        if let text = pick("--dashboard-url", "LEAKHISTORY_DASHBOARD_URL", "dashboard") {
            guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw CommandFailure("The dashboard URL '\(text)' is not an http:// or https:// URL.", code: .usage)
            }
            dashboard = url
        }
        var settings = ClientSettings(
            server: server, token: pick("--token", "LEAKHISTORY_TOKEN", "token"), project: pick("--project", "LEAKHISTORY_PROJECT", "project") ?? "",
            environment: pick("--environment", "LEAKHISTORY_ENVIRONMENT", "environment") ?? "default",
            dashboard: dashboard)
        if settings.project.isEmpty { settings.project = try await defaultProject(settings) }
        return settings
    }

    /// The project of a server whose only project is `default`; otherwise a usage error that
    /// says which projects exist.
    private static func defaultProject(_ settings: ClientSettings) async throws(CommandFailure) -> String {
        let pass = "Pass --project NAME, set LEAKHISTORY_PROJECT, or add \"project\" to .leakhistory.json."
        let projects: [String]
        do {
            projects = try await LeakHistoryClient(settings: settings, retries: .never).projects()
        } catch {
            throw CommandFailure("No project given, and the server could not say which it has (\(error.message)). \(pass)", code: .usage)
        }
        switch projects {
        case ["default"]:
            return "default"
        case []:
            throw CommandFailure("No project given, and the server has no project yet: create one with "
                + "`leakhistory-server projects create NAME`. \(pass)", code: .usage)
        default:
            let shown = projects.count < ProjectsResponse.limit ? projects.joined(separator: ", ")
                : projects.joined(separator: ", ") + ", …"
            throw CommandFailure("No project given, and the server has \(projects.count == 1 ? "one project" : "several"): \(shown). \(pass)",
                                 code: .usage)
        }
    }

    /// The dashboard's diff page for two commits: `<dashboard or server>/p/<project>/diff?base=…&head=…&environment=…`,
    /// the URL the server's `DashboardLinks.diff` builds.
    func diffPage(base: String, head: String) -> String {
        let root = (dashboard ?? server).absoluteString
        let trimmed = root.hasSuffix("/") ? String(root.dropLast()) : root
        func encoded(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? value }
        return "\(trimmed)/p/\(encoded(project))/diff?base=\(encoded(base))&head=\(encoded(head))&environment=\(encoded(environment))"
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func fileSettings(_ root: String?) throws(CommandFailure) -> [String: String] {
        guard let root else { return [:] }
        let path = (root as NSString).appendingPathComponent(".leakhistory.json")
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw CommandFailure("\(path) is not a JSON object; expected e.g. {\"server\": \"http://host:8080\", \"project\": \"app\"}.", code: .usage)
        }
        var settings: [String: String] = [:]
        for (key, value) in object {
            guard let text = value as? String else {
                throw CommandFailure("\(path): \(key): expected a string.", code: .usage)
            }
            settings[key] = text
        }
        return settings
    }
}
