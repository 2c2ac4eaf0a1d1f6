import Foundation

/// One upload: the checks of a test run at one commit (schema `leakhistory.run/1`).
public struct RunRecord: Codable, Sendable, Hashable {
    /// The tool that produced the run.
    public struct Tool: Codable, Sendable, Hashable {
        public var name: String
        public var version: String
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    public var project: String
    /// The commit the run tested: 40 lowercase hex digits.
    public var commit: String
    public var branch: String?
    /// The commit's parents, first parent first, when the uploader knows them.
    public var parents: [String]
    /// What the run ran on, e.g. `linux-swift6.3`. Runs of different environments never compare.
    public var environment: String
    /// An idempotency key, e.g. the CI job id and attempt: the same key uploads once.
    public var runKey: String
    public var startedAt: Date
    public var tool: Tool?
    public var checks: [CheckRecord]

    public init(
        project: String, commit: String, branch: String? = nil, parents: [String] = [],
        environment: String = "default", runKey: String, startedAt: Date = Date(),
        tool: Tool? = nil, checks: [CheckRecord]
    ) {
        self.project = project
        self.commit = commit
        self.branch = branch
        self.parents = parents
        self.environment = environment
        self.runKey = runKey
        self.startedAt = ReportTimestamp.normalized(startedAt)
        self.tool = tool
        self.checks = checks
    }

    enum CodingKeys: String, CodingKey {
        case schema, project, commit, branch, parents, environment, runKey, startedAt, tool, checks
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try c.acceptSchema(.run, forKey: .schema)
        project = try c.decode(String.self, forKey: .project)
        commit = try c.decode(String.self, forKey: .commit)
        branch = try c.decodeIfPresent(String.self, forKey: .branch)
        parents = try c.decodeIfPresent([String].self, forKey: .parents) ?? []
        environment = try c.decodeIfPresent(String.self, forKey: .environment) ?? "default"
        runKey = try c.decode(String.self, forKey: .runKey)
        startedAt = try c.decodeTimestamp(forKey: .startedAt)
        tool = try c.decodeIfPresent(Tool.self, forKey: .tool)
        checks = try c.decode([CheckRecord].self, forKey: .checks)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(SchemaVersion.run.description, forKey: .schema)
        try c.encode(project, forKey: .project)
        try c.encode(commit, forKey: .commit)
        try c.encodeIfPresent(branch, forKey: .branch)
        try c.encode(parents, forKey: .parents)
        try c.encode(environment, forKey: .environment)
        try c.encode(runKey, forKey: .runKey)
        try c.encode(ReportTimestamp.string(from: startedAt), forKey: .startedAt)
        try c.encodeIfPresent(tool, forKey: .tool)
        try c.encode(checks, forKey: .checks)
    }
}
