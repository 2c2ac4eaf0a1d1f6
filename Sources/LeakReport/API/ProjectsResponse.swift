/// What `GET /v1/projects` answers: the projects a caller may use, at most `limit`.
///
/// ```json
/// {"projects": ["default"]}
/// ```
public struct ProjectsResponse: Codable, Sendable, Hashable {
    /// The most names one answer carries: enough to say which exist.
    public static let limit = 100

    public var projects: [String]

    public init(projects: [String]) {
        self.projects = projects
    }
}
