import Foundation

/// What a CI provider's environment says about the build: the commit under test, its branch,
/// and a key that identifies this job attempt (so a retried upload is not stored twice).
struct CIEnvironment: Sendable, Equatable {
    var provider: String
    var commit: String?
    var branch: String?
    var runKey: String?

    /// Who started the build, as the provider names them (GitHub's actor, GitLab's and
    /// Buildkite's e-mail address); nil when not on a known CI or it does not say.
    static func actor(_ environment: [String: String]) -> String? {
        ["GITHUB_ACTOR", "GITLAB_USER_EMAIL", "BUILDKITE_BUILD_CREATOR_EMAIL", "CIRCLE_USERNAME"]
            .lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
    }

    /// Reads the provider from `environment`; nil when not on a known CI.
    static func detect(_ environment: [String: String], readFile: (String) -> Data? = { FileManager.default.contents(atPath: $0) }) -> CIEnvironment? {
        let e = environment
        if e["GITHUB_ACTIONS"] == "true" {
            // A pull request checks out a merge commit; the commit under review is its head.
            var commit = e["GITHUB_SHA"]
            if let path = e["GITHUB_EVENT_PATH"], let data = readFile(path),
               let event = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
               let pullRequest = event["pull_request"] as? [String: Any],
               let head = pullRequest["head"] as? [String: Any], let sha = head["sha"] as? String {
                commit = sha
            }
            let branch = nonEmpty(e["GITHUB_HEAD_REF"]) ?? e["GITHUB_REF_NAME"]
            return CIEnvironment(provider: "github", commit: commit, branch: branch,
                                 runKey: key("github", e["GITHUB_RUN_ID"], e["GITHUB_JOB"], e["GITHUB_RUN_ATTEMPT"]))
        }
        if e["GITLAB_CI"] != nil {
            let branch = nonEmpty(e["CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"]) ?? e["CI_COMMIT_REF_NAME"]
            return CIEnvironment(provider: "gitlab", commit: e["CI_COMMIT_SHA"], branch: branch,
                                 runKey: key("gitlab", e["CI_JOB_ID"]))
        }
        if e["BUILDKITE"] == "true" {
            return CIEnvironment(provider: "buildkite", commit: e["BUILDKITE_COMMIT"], branch: e["BUILDKITE_BRANCH"],
                                 runKey: key("buildkite", e["BUILDKITE_JOB_ID"], e["BUILDKITE_RETRY_COUNT"] ?? "0"))
        }
        if e["CIRCLECI"] == "true" {
            return CIEnvironment(provider: "circleci", commit: e["CIRCLE_SHA1"], branch: e["CIRCLE_BRANCH"],
                                 runKey: key("circleci", e["CIRCLE_WORKFLOW_JOB_ID"] ?? e["CIRCLE_BUILD_NUM"], e["CIRCLE_NODE_INDEX"]))
        }
        if e["BITRISE_IO"] == "true" {
            return CIEnvironment(provider: "bitrise", commit: e["BITRISE_GIT_COMMIT"] ?? e["GIT_CLONE_COMMIT_HASH"],
                                 branch: e["BITRISE_GIT_BRANCH"], runKey: key("bitrise", e["BITRISE_BUILD_SLUG"]))
        }
        if e["JENKINS_URL"] != nil {
            let branch = (nonEmpty(e["CHANGE_BRANCH"]) ?? nonEmpty(e["BRANCH_NAME"]) ?? e["GIT_BRANCH"]).map {
                $0.hasPrefix("origin/") ? String($0.dropFirst(7)) : $0
            }
            return CIEnvironment(provider: "jenkins", commit: e["GIT_COMMIT"], branch: branch, runKey: key("jenkins", e["BUILD_TAG"]))
        }
        return nil
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }

    /// `github-123-test-1`, or nil when the provider did not give the job's id.
    private static func key(_ provider: String, _ parts: String?...) -> String? {
        guard let first = parts.first, let id = first, !id.isEmpty else { return nil }
        return ([provider] + parts.compactMap { $0 }.filter { !$0.isEmpty }).joined(separator: "-")
    }
}
