import LeakServer

/// `leakhistory-server projects create NAME`: prints the new project's write token.
enum ProjectsCommand {
    static func run(_ words: [String], configuration: ServerConfiguration) throws -> Int32 {
        guard words.count == 2, words[0] == "create" else {
            throw UsageError("expected `projects create <name>`")
        }
        let name = words[1]
        guard !name.isEmpty, name.count <= 1024, !name.contains("/") else {
            throw UsageError("a project name must be 1 to 1024 characters without '/'")
        }
        let token = try ServerTool.openStore(configuration, announce: true).createProject(name)
        print(token.secret)
        return 0
    }
}
