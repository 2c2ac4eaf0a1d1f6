import Foundation

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

    /// The options every server command takes.
    static let options: [CommandSpec.Option] = [
        .init(name: "--server", valueName: "url", help: "The LeakHistory server (LEAKHISTORY_SERVER)."),
        .init(name: "--token", valueName: "token", help: "A token of the project (LEAKHISTORY_TOKEN); uploads need a write token."),
        .init(name: "--project", valueName: "name", help: "The project (LEAKHISTORY_PROJECT)."),
        .init(name: "--environment", valueName: "name", help: "What the tests ran on, e.g. linux-swift6.3 (LEAKHISTORY_ENVIRONMENT; default: default)."),
    ]

    static func resolve(_ arguments: ParsedArguments, environment: [String: String], repositoryRoot: String?) throws(CommandFailure) -> ClientSettings {
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
        guard let project = pick("--project", "LEAKHISTORY_PROJECT", "project") else {
            throw CommandFailure(
                "No project given. Pass --project NAME, set LEAKHISTORY_PROJECT, or add \"project\" to .leakhistory.json.",
                code: .usage)
        }
        return ClientSettings(
            server: server, token: pick("--token", "LEAKHISTORY_TOKEN", "token"), project: project,
            environment: pick("--environment", "LEAKHISTORY_ENVIRONMENT", "environment") ?? "default")
    }

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
