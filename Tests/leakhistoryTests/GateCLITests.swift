import Foundation
import Testing
import LeakReport

/// The CI gate end to end: `leakhistory check` as a CI job runs it, the real binary in a real
/// git history, against a real server.
@Suite struct GateCLITests {
    let repository: GitFixture
    let server: TestServer
    static let profile = ("ProfileTests/open()", "App.ProfileViewModel")
    static let cache = ("CacheTests/fill()", "App.ImageCache")

    init() throws {
        repository = try GitFixture()
        server = try TestServer()
    }

    static func profile(_ outcome: CheckOutcome) -> CheckRecord { check(profile.0, profile.1, outcome) }
    static func cache(_ outcome: CheckOutcome) -> CheckRecord { check(cache.0, cache.1, outcome) }

    /// Commits, then uploads `checks` for the new commit through the CLI (nil: no upload).
    @discardableResult
    func commit(_ name: String, _ checks: [CheckRecord]?) throws -> String {
        let sha = try repository.commit(name)
        if let checks {
            let report = try repository.folder.report("upload-\(sha.prefix(8)).ndjson", checks)
            let result = try CLI.run(["upload", report, "--commit", sha], in: repository.url, environment: server.environment)
            guard result.status == 0 else { throw FixtureError("upload failed: \(result.stderr)") }
        }
        return sha
    }

    /// `leakhistory check --base main` with this run's report, as the CI step.
    func runCheck(_ checks: [CheckRecord], format: String = "text", extra: [String] = []) throws -> CLIResult {
        let report = try repository.folder.report("head-\(UUID().uuidString).ndjson", checks)
        return try CLI.run(["check", report, "--base", "main", "--format", format] + extra, in: repository.url, environment: server.environment)
    }

    @Test func aPullRequestThatBringsInALeakFails() throws {
        try commit("c1", [Self.profile(.deallocated), Self.cache(.leaked)])
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
        let result = try runCheck([Self.profile(.leaked), Self.cache(.leaked)])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("New leaks (1)"))
        #expect(result.stdout.contains("Persisting (1)"))
    }

    @Test func aPushToMainIsComparedWithItsFirstParent() throws {
        let c1 = try commit("c1", [Self.profile(.deallocated)])
        try commit("c2", nil)
        let c2 = try repository.git("rev-parse", "HEAD")
        let result = try runCheck([Self.profile(.leaked)])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("Base: \(c1.prefix(10)) (HEAD's first parent)"))
        #expect(result.stdout.contains("Head: \(c2.prefix(10))"))
        #expect(result.stdout.contains("New leaks (1)"))
        // The same commit checked again is still compared with its parent, not with itself.
        let again = try runCheck([Self.profile(.leaked)], extra: ["--run-key", "again"])
        #expect(again.status == 1, "\(again.stdout)")
    }

    @Test func withoutABaseTheLeaksAtHeadAreListedAsUnverifiedInEveryFormat() throws {
        try repository.commit("c1")
        let text = try runCheck([Self.profile(.leaked), Self.cache(.deallocated)])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("WARNING: no base"))
        #expect(text.stdout.contains("Leaks at head, unverified (no base to compare with) (1)"))
        #expect(text.stdout.contains("App.ProfileViewModel  in ProfileTests/open()"))
        #expect(!text.stdout.contains("no new leaks"))
        let github = try runCheck([Self.profile(.leaked)], format: "github", extra: ["--run-key", "gh"])
        #expect(github.status == 0)
        #expect(github.stdout.contains("::warning file=Tests/AppTests/ProfileTests.swift,line=12,title=LeakHistory%3A unverified leak::"))
        let markdown = try runCheck([Self.profile(.leaked)], format: "markdown", extra: ["--run-key", "md"])
        #expect(markdown.stdout.hasPrefix("### LeakHistory: ⚠️ no base"))
        #expect(markdown.stdout.contains("`App.ProfileViewModel`"))
        let json = try runCheck([Self.profile(.leaked)], format: "json", extra: ["--run-key", "json"])
        #expect(json.stdout.contains("\"result\" : \"noBase\""))
        #expect(json.stdout.contains("\"category\" : \"unverified\""))
        let fail = try runCheck([Self.profile(.leaked)], extra: ["--run-key", "fail", "--if-no-base", "fail"])
        #expect(fail.status == 3)
        // A failing build says why where GitHub shows failures, not only as warnings.
        let githubFail = try runCheck([Self.profile(.leaked)], format: "github",
                                      extra: ["--run-key", "gh-fail", "--if-no-base", "fail"])
        #expect(githubFail.status == 3)
        #expect(githubFail.stdout.contains("::error title=LeakHistory%3A no base::FAIL: no base: "), "\(githubFail.stdout)")
    }

    @Test func aPartialBaseRunDoesNotMakeWhatItMissedNew() throws {
        try commit("c1", [Self.profile(.leaked), Self.cache(.deallocated)])
        let c2 = try commit("c2", [Self.cache(.deallocated)])          // crashed before the profile test
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
        let result = try runCheck([Self.profile(.leaked), Self.cache(.deallocated)], format: "json")
        #expect(result.status == 0, "\(result.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.first?["category"] as? String == "persisting")
        #expect((object["base"] as? [String: Any])?["commit"] as? String == c2)
    }

    @Test func aSuspectHeadFailsAndSaysWhyInsteadOfNothingUploaded() throws {
        try commit("c1", [Self.profile(.deallocated)])
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
        let broken = (0..<24).map { check("Broken/t\($0)()", "App.Part\($0)", .leaked) } + [Self.profile(.leaked)]
        let result = try runCheck(broken)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("of 25 checks leaked — every check leaking usually means"))
        #expect(result.stdout.contains("New leaks (25)"))
        #expect(!result.stderr.contains("Nothing is uploaded"))
        // Two checks that both leak are two leaks, not a broken run.
        try repository.commit("f2")
        let small = try runCheck([Self.profile(.leaked), check("Other/t()", "App.Other", .leaked)], extra: ["--run-key", "small"])
        #expect(small.status == 1)
        #expect(!small.stdout.contains("suspect"))
        #expect(small.stdout.contains("New leaks (2)"))
    }

    @Test func aLeakThatWasFixedAndComesBackIsNew() throws {
        for index in 1...GateRule.heldLeakCommits { try commit("c\(index)", [Self.profile(.leaked)]) }
        try commit("c4", [Self.profile(.deallocated)])
        try commit("c5", [Self.profile(.deallocated)])
        try commit("c6", [Self.profile(.deallocated)])
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
        let result = try runCheck([Self.profile(.leaked)])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("New leaks (1)"))
    }

    @Test func anIntermittentKeyIsFlakyNotNew() throws {
        try commit("c1", [Self.profile(.deallocated)])
        try commit("c2", [Self.profile(.leaked)])
        try commit("c3", [Self.profile(.deallocated)])
        try commit("c4", [Self.profile(.deallocated)])
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
        let result = try runCheck([Self.profile(.leaked)])
        #expect(result.status == 0, "\(result.stdout)")
        #expect(result.stdout.contains("Flaky (1)"))
        #expect(result.stdout.contains("25% of its last 4 runs"), "the verdict's evidence: \(result.stdout)")
        let strict = try runCheck([Self.profile(.leaked)], extra: ["--strict", "--run-key", "strict"])
        #expect(strict.status == 1)
    }

    @Test func aLeakThatCameInWithCommitsWithoutUploadsIsInherited() throws {
        try commit("c1", [Self.profile(.deallocated), Self.cache(.deallocated)])
        let c2 = try commit("c2", nil)                                  // the merge-base: no upload
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
        try repository.git("checkout", "-q", "main")
        let c3 = try commit("c3", [Self.profile(.leaked), Self.cache(.deallocated)])   // main's own upload shows it
        try repository.git("checkout", "-q", "feature")
        let result = try runCheck([Self.profile(.leaked), Self.cache(.leaked)])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("before the merge-base \(c2.prefix(10))"))
        #expect(result.stdout.contains("Inherited (leaks on the base branch; came in with commits that have no upload) (1)"))
        #expect(result.stdout.contains("New leaks (1)"))
        #expect(result.stdout.contains("App.ImageCache  in CacheTests/fill()"))
        _ = c3
    }
    /// Nothing on main after the merge-base has data, but the merge-base (without an upload) merged
    /// a branch whose upload shows the leak: it came in with that merge.
    @Test func aLeakABranchMergedWithoutUploadsBroughtInIsInherited() throws {
        try commit("c1", [Self.profile(.deallocated), Self.cache(.deallocated)])
        try repository.git("checkout", "-q", "-b", "topic")
        let t1 = try commit("t1", [Self.profile(.leaked), Self.cache(.deallocated)])
        try repository.git("checkout", "-q", "main")
        try repository.git("merge", "-q", "--no-ff", "-m", "merge topic", "topic")      // the merge-base: no upload
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
        let result = try runCheck([Self.profile(.leaked), Self.cache(.leaked)], format: "json")
        #expect(result.status == 1, "\(result.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let entries = try #require(object["entries"] as? [[String: Any]])
        let profile = entries.first { $0["type"] as? String == Self.profile.1 }
        #expect(profile?["category"] as? String == "inherited")
        #expect(profile?["inheritedFrom"] as? String == t1)
        #expect(entries.first { $0["type"] as? String == Self.cache.1 }?["category"] as? String == "new")
    }

    /// Every format says why a leak is new: the gate's one sentence (`GateEvidence.summary`),
    /// and in JSON and SARIF the numbers it rests on.
    @Test func everyFormatShowsTheVerdictsEvidence() throws {
        for index in 1...3 { try commit("c\(index)", [Self.profile(.deallocated)]) }
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
        var confirmed = Self.profile(.leaked)
        confirmed.attempts = 3
        confirmed.leakedAttempts = 3
        let why = "leaked in 3 of 3 attempts at head; 0 of the last 3 runs leaked"
        let text = try runCheck([confirmed])
        #expect(text.status == 1, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("why: \(why)"), "\(text.stdout)")
        // The other formats from the same upload: `diff` asks again without uploading.
        func diff(_ format: String, environment extra: [String: String] = [:]) throws -> CLIResult {
            try CLI.run(["diff", "main..HEAD", "--format", format], in: repository.url, environment: server.environment.merging(extra) { $1 })
        }
        let markdown = try diff("markdown")
        #expect(markdown.stdout.contains("<br>why: \(why)"), "\(markdown.stdout)")
        let summaryFile = repository.url.appendingPathComponent("step-summary.md")
        let github = try diff("github", environment: ["GITHUB_STEP_SUMMARY": summaryFile.path])
        #expect(github.stdout.contains("::error file=Tests/AppTests/ProfileTests.swift,line=12"))
        #expect(github.stdout.contains("Why: \(why)."), "\(github.stdout)")
        #expect(try String(contentsOf: summaryFile, encoding: .utf8).contains("why: \(why)"))
        let json = try diff("json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let entry = try #require((document["entries"] as? [[String: Any]])?.first)
        let evidence = try #require(entry["evidence"] as? [String: Any])
        #expect(evidence["summary"] as? String == why)
        #expect(evidence["headAttempts"] as? Int == 3)
        #expect(evidence["recentRuns"] as? Int == 3)
        #expect(((document["groups"] as? [[String: Any]])?.first?["evidence"] as? [String: Any])?["summary"] as? String == why)
        let sarif = try diff("sarif")
        let log = try #require(try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])
        let result = try #require(((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first)
        #expect(((result["message"] as? [String: Any])?["text"] as? String)?.hasSuffix(" Why: \(why).") == true)
        let properties = try #require(result["properties"] as? [String: Any])
        #expect((properties["evidence"] as? [String: Any])?["headLeakedAttempts"] as? Int == 3)
    }
}
