import Foundation
import LeakReport
import Testing
@testable import leakhistory

@Suite struct CIEnvironmentTests {
    @Test func notOnCI() {
        #expect(CIEnvironment.detect(["HOME": "/root"]) == nil)
    }

    @Test func githubPushAndPullRequest() {
        let push = CIEnvironment.detect(["GITHUB_ACTIONS": "true", "GITHUB_SHA": "abc", "GITHUB_REF_NAME": "main",
                                         "GITHUB_RUN_ID": "9", "GITHUB_JOB": "test", "GITHUB_RUN_ATTEMPT": "1"])
        #expect(push == CIEnvironment(provider: "github", commit: "abc", branch: "main", runKey: "github-9-test-1"))
        let pr = CIEnvironment.detect(
            ["GITHUB_ACTIONS": "true", "GITHUB_SHA": "merge", "GITHUB_HEAD_REF": "feature", "GITHUB_EVENT_PATH": "/event.json",
             "GITHUB_RUN_ID": "9", "GITHUB_JOB": "test", "GITHUB_RUN_ATTEMPT": "3"],
            readFile: { _ in Data(#"{"pull_request":{"head":{"sha":"prhead"}}}"#.utf8) })
        #expect(pr?.commit == "prhead")
        #expect(pr?.branch == "feature")
        #expect(pr?.runKey == "github-9-test-3")
    }

    @Test(arguments: [
        (["GITLAB_CI": "true", "CI_COMMIT_SHA": "c", "CI_COMMIT_REF_NAME": "main", "CI_JOB_ID": "5"],
         CIEnvironment(provider: "gitlab", commit: "c", branch: "main", runKey: "gitlab-5")),
        (["BUILDKITE": "true", "BUILDKITE_COMMIT": "c", "BUILDKITE_BRANCH": "dev", "BUILDKITE_JOB_ID": "j", "BUILDKITE_RETRY_COUNT": "1"],
         CIEnvironment(provider: "buildkite", commit: "c", branch: "dev", runKey: "buildkite-j-1")),
        (["CIRCLECI": "true", "CIRCLE_SHA1": "c", "CIRCLE_BRANCH": "b", "CIRCLE_WORKFLOW_JOB_ID": "w"],
         CIEnvironment(provider: "circleci", commit: "c", branch: "b", runKey: "circleci-w")),
        (["JENKINS_URL": "http://j", "GIT_COMMIT": "c", "GIT_BRANCH": "origin/main", "BUILD_TAG": "jenkins-app-3"],
         CIEnvironment(provider: "jenkins", commit: "c", branch: "main", runKey: "jenkins-jenkins-app-3")),
        (["BITRISE_IO": "true", "BITRISE_GIT_COMMIT": "c", "BITRISE_GIT_BRANCH": "b", "BITRISE_BUILD_SLUG": "s"],
         CIEnvironment(provider: "bitrise", commit: "c", branch: "b", runKey: "bitrise-s")),
    ])
    func otherProviders(environment: [String: String], expected: CIEnvironment) {
        #expect(CIEnvironment.detect(environment) == expected)
    }

    @Test(arguments: [
        ("main..HEAD", "main", "HEAD"), ("main...feature", "main", "feature"), ("v1.0", "v1.0", "HEAD"),
        ("..feature", "HEAD", "feature"), ("abc123..", "abc123", "HEAD"),
    ])
    func revisionRanges(text: String, base: String, head: String) throws {
        #expect(try RevisionRange(parsing: text) == RevisionRange(base: base, head: head))
    }

    @Test func sparklineScalesFromZero() {
        #expect(Sparkline.draw([0, 1, 2, 4]) == "▁▃▅█")
        #expect(Sparkline.draw([3, 3]) == "██")
        #expect(Sparkline.draw([0, 0]) == "▁▁")
        #expect(Sparkline.draw([]) == "")
    }

    @Test(arguments: [
        ("/x/leakcheck-20261130020000-222-7.ndjson", "222"), ("leakcheck-1.ndjson", nil),
        ("/x/report.ndjson", nil), ("leakcheck-2026-a-7.ndjson", nil),
        ("/x/leakcheck-20261130020000-ci_981.2-7.8c3a1f20.ndjson", "ci_981.2"),
    ] as [(String, String?)])
    func reportRuns(file: String, run: String?) {
        #expect(ReportFileName(parsing: file)?.run == run)
    }

    @Test func closestMatchIgnoresFarWords() {
        #expect(closestMatch(to: "--frmat", among: ["--format", "--server"]) == "--format")
        #expect(closestMatch(to: "--zzzzzzzz", among: ["--format", "--server"]) == nil)
    }
}
