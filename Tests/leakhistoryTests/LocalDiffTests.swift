import Foundation
import Testing
import LeakReport

/// `leakhistory diff --local BASE.ndjson HEAD.ndjson`: the comparison without a server.
@Suite struct LocalDiffTests {
    let folder: TemporaryFolder
    let base: String
    let head: String

    init() throws {
        folder = try TemporaryFolder()
        base = try folder.report("base.ndjson", [
            check("ProfileTests/open()", "App.ProfileViewModel", .deallocated),
            check("CacheTests/fill()", "App.ImageCache", .leaked),
            check("SearchTests/type()", "App.SearchModel", .leaked),
        ])
        head = try folder.report("head.ndjson", [
            check("ProfileTests/open()", "App.ProfileViewModel", .leaked, line: 42),
            check("CacheTests/fill()", "App.ImageCache", .leaked),
            check("SearchTests/type()", "App.SearchModel", .deallocated),
            check("NewTests/added()", "App.Added", .lateRelease),
        ])
    }

    @Test func newLeakFailsWithExitCode1() throws {
        let result = try CLI.run(["diff", "--local", base, head], in: folder.url)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("New leaks (1)"))
        #expect(result.stdout.contains("App.ProfileViewModel  in ProfileTests/open()  at Tests/AppTests/ProfileTests.swift:42"))
        #expect(result.stdout.contains("retain path: ProfileViewModel.onDone (closure) → captures ProfileViewModel"))
        #expect(result.stdout.contains("Persisting (1)"))
        #expect(result.stdout.contains("Fixed (1)"))
        #expect(result.stdout.contains("Late releases (warnings) (1)"))
        #expect(result.stdout.contains("Summary: 1 new, 0 unverified, 0 flaky, 1 persisting, 0 inherited, 0 known, 0 not run, 1 fixed, 1 late releases, 0 suppressed."))
        #expect(!result.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
    }

    @Test func noNewLeaksPassesWithExitCode0() throws {
        let result = try CLI.run(["diff", "--local", head, head], in: folder.url)
        #expect(result.status == 0)
        #expect(result.stdout.contains("OK: no new leaks."))
    }

    @Test func jsonIsStable() throws {
        let result = try CLI.run(["diff", "--local", base, head, "--format", "json"], in: folder.url)
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["schema"] as? String == "leakhistory.diff/1")
        #expect(object["result"] as? String == "fail")
        #expect(object["exitCode"] as? Int == 1)
        let counts = try #require(object["counts"] as? [String: Int])
        #expect(counts == ["new": 1, "fixed": 1, "persisting": 1, "flaky": 0, "notRun": 0, "lateRelease": 1, "suppressed": 0,
                           "inherited": 0, "known": 0, "unverified": 0])
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.count == 4)
        let new = try #require(entries.first { $0["category"] as? String == "new" })
        #expect(new["type"] as? String == "App.ProfileViewModel")
        #expect(new["line"] as? Int == 42)
    }

    @Test func markdownSuitsAPullRequestComment() throws {
        let result = try CLI.run(["diff", "--local", base, head, "--format", "markdown"], in: folder.url)
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("### LeakHistory: ❌ 1 new leak\n"))
        #expect(result.stdout.contains("| Leak | Scenarios | Where | Retain path | First seen |"))
        #expect(result.stdout.contains("| `App.ProfileViewModel` | `ProfileTests/open()` | `Tests/AppTests/ProfileTests.swift:42` | `ProfileViewModel.onDone (closure) → captures ProfileViewModel` | — |"))
    }

    @Test func githubWritesAnnotationsAndTheStepSummary() throws {
        let summary = folder.path("step-summary.md")
        let result = try CLI.run(["diff", "--local", base, head, "--format", "github"], in: folder.url,
                                 environment: ["GITHUB_STEP_SUMMARY": summary])
        #expect(result.status == 1)
        #expect(result.stdout.contains("::error file=Tests/AppTests/ProfileTests.swift,line=42,title=LeakHistory%3A new leak::New leaks: App.ProfileViewModel in ProfileTests/open()."))
        #expect(result.stdout.contains("::warning file=Tests/AppTests/ProfileTests.swift,line=12,"))
        let written = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(written.contains("### LeakHistory: ❌ 1 new leak\n"))
    }

    @Test func badReportLineIsNamedAsFileAndLine() throws {
        let broken = folder.path("broken.ndjson")
        let good = try String(contentsOfFile: head, encoding: .utf8)
        try (good + "{\"schema\":\"leakhistory.check/1\",\"scenario\":3}\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let result = try CLI.run(["diff", "--local", base, broken], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(broken):5: scenario: expected a string"))
    }

    @Test func missingReportIsNamed() throws {
        let result = try CLI.run(["diff", "--local", base, folder.path("nope.ndjson")], in: folder.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("No leak report at \(folder.path("nope.ndjson"))"))
    }

    @Test func strictFailsOnFlaky() throws {
        let flakyHead = try folder.report("flaky.ndjson", [
            check("ProfileTests/open()", "App.ProfileViewModel", .leaked),
            check("ProfileTests/open()", "App.ProfileViewModel", .deallocated),
        ])
        let relaxed = try CLI.run(["diff", "--local", base, flakyHead], in: folder.url)
        #expect(relaxed.status == 0)
        #expect(relaxed.stdout.contains("Flaky (1)"))
        let strict = try CLI.run(["diff", "--local", base, flakyHead, "--strict"], in: folder.url)
        #expect(strict.status == 1)
    }
}
