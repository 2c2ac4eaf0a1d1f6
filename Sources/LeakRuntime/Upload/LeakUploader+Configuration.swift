import Foundation

extension LeakUploader {
    /// Where findings go and how they are batched, retried and kept while the server is away.
    ///
    /// ```swift
    /// let configuration = LeakUploader.Configuration(
    ///     server: URL(string: "https://leaks.example.com")!, token: secret, project: "app",
    ///     commit: BuildInfo.commit, build: BuildInfo.number, environment: "ios-debug")
    /// ```
    public struct Configuration: Sendable {
        /// The LeakHistory server: runs go to `POST {server}/v1/projects/{project}/runs`.
        public var server: URL
        /// The project's write token, sent as `Authorization: Bearer <token>`.
        public var token: String
        public var project: String
        /// The commit the running build was made from: 40 hex digits.
        public var commit: String
        public var branch: String?
        /// What the build runs on, e.g. `ios-debug` or `staging-linux`; runs of different
        /// environments never compare.
        public var environment: String
        /// This build or deployment (a CI build number, an app's version and build): the start of
        /// every run key, so that two builds' runs never share one.
        public var build: String
        /// Checks a run holds at most: a batch is sent once it has this many.
        public var checksPerRun: Int
        /// Seconds a batch that is not full waits for more findings before it is sent.
        public var sendAfter: Double
        /// Checks kept in memory at most, waiting or unsent; findings past it are dropped and
        /// counted (`Statistics.dropped`). With a `spoolFolder`, unsent runs wait there instead.
        public var maxQueuedChecks: Int
        /// A folder where runs wait, as files, until the server has them: they survive the server
        /// being away, and the process ending (a later uploader on the same folder sends them).
        /// Nil: they wait in memory only.
        public var spoolFolder: URL?
        /// Runs kept in `spoolFolder` at most; newer ones are dropped and counted past it.
        public var maxSpooledRuns: Int
        /// Seconds before the first retry of a run the server did not take; each failure in a row
        /// doubles it, up to `maxRetryDelay` (or the server's `Retry-After`, if longer).
        public var firstRetryDelay: Double
        public var maxRetryDelay: Double

        public init(
            server: URL, token: String, project: String, commit: String, build: String,
            branch: String? = nil, environment: String = "default", checksPerRun: Int = 500, sendAfter: Double = 30,
            maxQueuedChecks: Int = 10_000, spoolFolder: URL? = nil, maxSpooledRuns: Int = 1_000,
            firstRetryDelay: Double = 1, maxRetryDelay: Double = 300
        ) {
            self.server = server
            self.token = token
            self.project = project
            self.commit = commit
            self.branch = branch
            self.environment = environment
            self.build = build
            self.checksPerRun = max(1, checksPerRun)
            self.sendAfter = min(max(0, sendAfter), 86_400)
            self.maxQueuedChecks = max(1, maxQueuedChecks)
            self.spoolFolder = spoolFolder
            self.maxSpooledRuns = max(1, maxSpooledRuns)
            self.firstRetryDelay = min(max(0.001, firstRetryDelay), 86_400)
            self.maxRetryDelay = min(max(self.firstRetryDelay, maxRetryDelay), 86_400)
        }

        /// The configuration the environment gives, or nil unless it opts in with
        /// `LEAKHISTORY_UPLOAD=1` and names `LEAKHISTORY_SERVER`, `LEAKHISTORY_TOKEN`,
        /// `LEAKHISTORY_PROJECT` and `LEAKHISTORY_COMMIT`. Optional: `LEAKHISTORY_BRANCH`,
        /// `LEAKHISTORY_ENVIRONMENT`, `LEAKHISTORY_BUILD` (default: the commit's first 12 digits),
        /// `LEAKHISTORY_SPOOL` (a folder). A value that is set but wrong is said on standard error.
        public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
            guard environment["LEAKHISTORY_UPLOAD"] == "1" else { return nil }
            func value(_ name: String) -> String? {
                environment[name].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
            }
            let required = ["LEAKHISTORY_SERVER", "LEAKHISTORY_TOKEN", "LEAKHISTORY_PROJECT", "LEAKHISTORY_COMMIT"]
            let missing = required.filter { value($0) == nil }
            guard missing.isEmpty, let server = value("LEAKHISTORY_SERVER").flatMap(URL.init(string:)),
                  server.scheme == "http" || server.scheme == "https" else {
                let problem = missing.isEmpty ? "LEAKHISTORY_SERVER is not an http(s) URL" : "\(missing.joined(separator: ", ")) not set"
                LeakUploader.warn("LEAKHISTORY_UPLOAD=1 but \(problem): findings are not uploaded.")
                return nil
            }
            let commit = value("LEAKHISTORY_COMMIT")!.lowercased()
            guard commit.count == 40, commit.allSatisfy(\.isHexDigit) else {
                LeakUploader.warn("LEAKHISTORY_COMMIT=\(commit) is not a 40-digit commit hash: findings are not uploaded.")
                return nil
            }
            self.init(
                server: server, token: value("LEAKHISTORY_TOKEN")!, project: value("LEAKHISTORY_PROJECT")!, commit: commit,
                build: value("LEAKHISTORY_BUILD") ?? String(commit.prefix(12)), branch: value("LEAKHISTORY_BRANCH"),
                environment: value("LEAKHISTORY_ENVIRONMENT") ?? "default",
                spoolFolder: value("LEAKHISTORY_SPOOL").map { URL(fileURLWithPath: $0, isDirectory: true) })
        }

        var runsURL: URL {
            server.appendingPathComponent("v1/projects").appendingPathComponent(project).appendingPathComponent("runs")
        }
    }
}
