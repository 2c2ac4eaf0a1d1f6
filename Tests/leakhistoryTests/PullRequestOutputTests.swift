import Foundation
import Testing
import LeakReport

/// What a pull request sees: every output format grouped by root cause, the dashboard link,
/// suppressions next to what they cover, SARIF that passes the published schema — from the
/// real CLI against a real server and a real git history.
///
/// main: c1 (a cache leak).  feature from c1: f1, where a coordinator cycle leaks in five
/// scenarios under one fingerprint, an unrelated leak has its own, the cache is fixed, one new
/// leak is covered by a suppression and one by a suppression that has expired.
@Suite struct PullRequestOutputTests {
    let repository: GitFixture
    let server: TestServer
    var c1 = "", f1 = ""
    /// Where the cycle's checks were written: inside the repository, as `#filePath` gives it.
    let cycleFile: String

    init() throws {
        repository = try GitFixture()
        server = try TestServer()
        cycleFile = repository.url.path + "/Tests/AppTests/CoordinatorTests.swift"
        c1 = try repository.commit("c1")
        try upload(at: c1, [
            leak("CacheTests/fill()", "App.ImageCache", fingerprint: "fp-cache"),
            check("CoordinatorTests/open()", "App.Coordinator", .deallocated),
        ])
        try repository.git("checkout", "-q", "-b", "feature")
        f1 = try repository.commit("f1")
        let cycle = [RetainPathStep(holder: "App.Coordinator", property: "children[0]", kind: .collection),
                     RetainPathStep(holder: "App.ViewModel", property: "coordinator", kind: .strong)]
        try upload(at: f1, [
            leak("CoordinatorTests/open()", "App.Coordinator", fingerprint: "fp-cycle", file: cycleFile, line: 30, path: cycle),
            leak("CoordinatorTests/close()", "App.Coordinator", fingerprint: "fp-cycle", file: cycleFile, line: 20, path: cycle),
            leak("CoordinatorTests/push()", "App.Coordinator", fingerprint: "fp-cycle", file: cycleFile, line: 40),
            leak("ProfileTests/open()", "App.ViewModel", fingerprint: "fp-cycle", file: cycleFile, line: 50),
            leak("ProfileTests/close()", "App.ViewModel", fingerprint: "fp-cycle", file: cycleFile, line: 60),
            leak("SearchTests/type()", "App.SearchModel", fingerprint: "fp-search", line: 7, path: Self.possiblePath),
            leak("LoaderTests/load()", "App.ImageLoader", fingerprint: "fp-loader", line: 8),
            leak("TimerTests/tick()", "App.Ticker", fingerprint: "fp-ticker", line: 9),
            check("CacheTests/fill()", "App.ImageCache", .deallocated),
        ])
        try repository.git("config", "user.email", "ana@example.com")
        try suppress(["--type", "App.ImageLoader", "--reason", "loader kept on purpose, APP-12", "--expires", "2099-01-01"])
        try suppress(["--fingerprint", "fp-tick*", "--reason", "ticker until the rewrite", "--expires", "2020-01-01"])
    }

    func leak(_ scenario: String, _ type: String, fingerprint: String, file: String = "Tests/AppTests/ProfileTests.swift",
              line: Int = 12, path: [RetainPathStep]? = nil) -> CheckRecord {
        CheckRecord(scenario: scenario, file: file, line: line, type: type, outcome: .leaked, waitedMs: 1, timeoutMs: 2000,
                    retainPath: path, fingerprint: fingerprint, message: "\(type) is still alive.\nIt was expected to go.")
    }

    /// Uploads `checks` with 30 passing ones, so that the run is not suspect.
    func upload(at commit: String, _ checks: [CheckRecord]) throws {
        let padding = (0..<30).map { check("PaddingTests/p\($0)()", "App.Padding", .deallocated) }
        let report = try repository.folder.report("upload-\(commit.prefix(8)).ndjson", checks + padding)
        let result = try CLI.run(["upload", report, "--commit", commit], in: repository.url, environment: server.environment)
        guard result.status == 0 else { throw FixtureError("upload failed: \(result.stderr)") }
    }

    func suppress(_ arguments: [String]) throws {
        let result = try CLI.run(["suppress", "add"] + arguments, in: repository.url, environment: server.environment)
        guard result.status == 0 else { throw FixtureError("suppress add failed: \(result.stderr)") }
    }

    func diff(_ format: String, environment extra: [String: String] = [:], _ more: [String] = []) throws -> CLIResult {
        try CLI.run(["diff", "main..HEAD", "--format", format] + more, in: repository.url,
                    environment: server.environment.merging(extra) { $1 })
    }

    var link: String { "http://127.0.0.1:\(server.port)/p/app/diff?base=\(c1)&head=\(f1)&environment=default" }

    @Test func textShowsOneEntryPerRootCauseWithItsSuppression() throws {
        let result = try diff("text")
        #expect(result.status == 1, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("Dashboard: \(link)"))
        // Five cycle keys, the search leak and the ticker (its rule expired): 7 in 3 groups.
        #expect(out.contains("New leaks (7 in 3 root causes)"), "\(out)")
        #expect(out.contains("✗ App.Coordinator, App.ViewModel  in 5 scenarios  at Tests/AppTests/CoordinatorTests.swift:20"))
        #expect(out.contains("also: CoordinatorTests/open() (App.Coordinator, Tests/AppTests/CoordinatorTests.swift:30); "
                             + "CoordinatorTests/push() (App.Coordinator, Tests/AppTests/CoordinatorTests.swift:40)"))
        #expect(count("retain path: Coordinator.children[0] → ViewModel.coordinator → Coordinator", in: out) == 1)
        #expect(out.contains("suppression #2 \"ticker until the rewrite\" (expired 2020-01-01, added by ana@example.com) no longer applies"))
        #expect(out.contains("Suppressed (1)"))
        #expect(out.contains("suppressed by #1 \"loader kept on purpose, APP-12\" (expires 2099-01-01, added by ana@example.com)"))
        #expect(out.contains("Fixed (1)"))
        #expect(out.contains("Summary: 7 new, 0 unverified, 0 flaky, 0 persisting, 0 inherited, 0 known, 0 not run, 1 fixed, 0 late releases, 1 suppressed."))
    }

    @Test func markdownIsAPullRequestCommentWithTheDashboardLink() throws {
        let result = try diff("markdown")
        #expect(result.status == 1)
        let out = result.stdout
        #expect(out.hasPrefix("### LeakHistory: ❌ 7 new leaks in 3 root causes\n\n**7 new** · 0 persisting · 1 fixed · 1 suppressed\n"), "\(out)")
        #expect(out.contains("[open on the dashboard](\(link))"))
        #expect(out.contains("#### New leaks (7 in 3 root causes)"))
        // Each new row says why the gate called it new (the base never checked these keys).
        #expect(out.contains("| `App.Coordinator`, `App.ViewModel`<br>why: leaked at head; no earlier run checked it | "
                             + "5: `CoordinatorTests/close()`, `CoordinatorTests/open()`, "
                             + "`CoordinatorTests/push()`, `ProfileTests/close()`, `ProfileTests/open()` | "
                             + "`Tests/AppTests/CoordinatorTests.swift:20` | `Coordinator.children[0] → ViewModel.coordinator → Coordinator` | `\(f1.prefix(10))` |"))
        #expect(out.contains("| `App.Ticker`<br>suppression #2 \"ticker until the rewrite\" (expired 2020-01-01, added by ana@example.com) no longer applies"
                             + "<br>why: leaked at head; no earlier run checked it |"))
        #expect(out.contains("<details><summary>Suppressed (1)</summary>"))
        #expect(out.contains("<details><summary>Fixed (1)</summary>"))
        // One table row per root cause: 3 new, 1 suppressed, 1 fixed.
        #expect(count("\n| `", in: out) == 5)
    }

    @Test func checkPrintsOnlyTheCommentBodyAndHonoursTheDashboardURL() throws {
        let head = try repository.commit("f2")
        let padding = (0..<30).map { check("PaddingTests/p\($0)()", "App.Padding", .deallocated) }
        let report = try repository.folder.report("check.ndjson", [leak("SearchTests/type()", "App.SearchModel", fingerprint: "fp-search")] + padding)
        let result = try CLI.run(["check", report, "--format", "markdown", "--base", "main", "--dashboard-url", "https://leaks.example.com/"],
                                 in: repository.url, environment: server.environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("### LeakHistory: ❌ 1 new leak\n"), "\(result.stdout)")
        #expect(result.stdout.contains("[open on the dashboard](https://leaks.example.com/p/app/diff?base=\(c1)&head=\(head)&environment=default)"))
    }

    @Test func githubWritesOneAnnotationPerRootCauseAtItsFirstOccurrence() throws {
        let summary = repository.folder.path("summary.md")
        let result = try diff("github", environment: ["GITHUB_STEP_SUMMARY": summary])
        #expect(result.status == 1)
        let errors = result.stdout.split(separator: "\n").filter { $0.hasPrefix("::error ") }
        #expect(errors.count == 3, "\(errors)")
        let cycle = try #require(errors.first { $0.contains("fp-cycle") })
        #expect(cycle.hasPrefix("::error file=Tests/AppTests/CoordinatorTests.swift,line=20,title=LeakHistory%3A new leak::"
                                + "New leaks: App.Coordinator, App.ViewModel in 5 scenarios. Also: CoordinatorTests/open() (App.Coordinator, "
                                + "Tests/AppTests/CoordinatorTests.swift:30); "))
        #expect(cycle.hasSuffix("%0ADashboard: \(link)"))
        #expect(!result.stdout.contains("::error file=Tests/AppTests/ProfileTests.swift,line=8"), "the suppressed leak is not an error")
        let written = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(written.hasPrefix("### LeakHistory: ❌ 7 new leaks in 3 root causes"))
        #expect(written.contains("[open on the dashboard](\(link))"))
    }

    @Test func jsonHasTheGroupsAndTheLink() throws {
        let result = try diff("json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["dashboardUrl"] as? String == link)
        let groups = try #require(object["groups"] as? [[String: Any]])
        #expect(groups.map { $0["category"] as? String } == ["new", "new", "new", "fixed", "suppressed"])
        let cycle = try #require(groups.first { $0["fingerprint"] as? String == "fp-cycle" })
        #expect((cycle["occurrences"] as? [Any])?.count == 5)
        #expect(cycle["types"] as? [String] == ["App.Coordinator", "App.ViewModel"])
        #expect(cycle["line"] as? Int == 20)
        let ticker = try #require(groups.first { $0["fingerprint"] as? String == "fp-ticker" })
        let note = try #require(ticker["suppression"] as? [String: Any])
        #expect(note["expired"] as? Bool == true)
        #expect(note["createdBy"] as? String == "ana@example.com")
        #expect((object["entries"] as? [Any])?.count == 9)
    }

    /// A path read partly without types: uploaded, stored and answered with its step marked, and
    /// printed by every format as the test's message prints it.
    static let possiblePath = [
        RetainPathStep(holder: "App.SearchModel", property: "query", kind: .strong),
        RetainPathStep(holder: "RxSwift.(unknown context at $7f3a).PublishSubject<Swift.String>", property: "observers._value0",
                       kind: .closure, isPossible: true),
    ]
    static let possibleText = "SearchModel.query → PublishSubject<String>.observers._value0 (closure) → captures SearchModel "
        + "(possible: PublishSubject<String>.observers._value0 is not proven to hold it strongly)"

    @Test func aPossiblePathIsShownMarkedInEveryFormat() throws {
        #expect(RetainPathStep.readable(Self.possiblePath, leakedType: "App.SearchModel") == Self.possibleText)
        let text = try diff("text")
        #expect(text.stdout.contains("retain path: " + Self.possibleText), "\(text.stdout)")
        let markdown = try diff("markdown")
        #expect(markdown.stdout.contains("`" + Self.possibleText + "`"))
        let github = try diff("github")
        #expect(github.stdout.contains("Retain path: " + Self.possibleText + "."))
        let json = try diff("json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let group = try #require((object["groups"] as? [[String: Any]])?.first { $0["fingerprint"] as? String == "fp-search" })
        let steps = try #require(group["retainPath"] as? [[String: Any]])
        #expect(steps.map { $0["possible"] as? Bool } == [nil, true])
        let sarif = try diff("sarif")
        let log = try #require(try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])
        let results = try #require((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
        let search = try #require(results.first { ($0["partialFingerprints"] as? [String: String])?["leakFingerprint/v1"] == "fp-search" })
        #expect((search["message"] as? [String: Any])?["text"] as? String == "New leak: App.SearchModel in SearchTests/type(). Retain path: \(Self.possibleText). Why: leaked at head; no earlier run checked it.")
        let flow = try #require((search["codeFlows"] as? [[String: Any]])?.first)
        #expect((flow["message"] as? [String: Any])?["text"] as? String == "Possible retain path")
        let locations = try #require((flow["threadFlows"] as? [[String: Any]])?.first?["locations"] as? [[String: Any]])
        #expect(locations.map { (($0["location"] as? [String: Any])?["message"] as? [String: Any])?["text"] as? String } == [
            "SearchModel.query", "PublishSubject<String>.observers._value0 (closure) (possible)", "captures SearchModel",
        ])
    }

    @Test func sarifPassesThePublishedSchemaWithOneResultPerNewRootCause() throws {
        let result = try diff("sarif")
        #expect(result.status == 1)
        let log = repository.folder.path("leaks.sarif")
        try result.stdout.write(toFile: log, atomically: true, encoding: .utf8)
        try SARIFSchema.validate(log)

        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let run = try #require((object["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 3)
        let cycle = try #require(results.first { ($0["partialFingerprints"] as? [String: String])?["leakFingerprint/v1"] == "fp-cycle" })
        let location = try #require((cycle["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
        let artifact = try #require(location["artifactLocation"] as? [String: Any])
        #expect(artifact["uri"] as? String == "Tests/AppTests/CoordinatorTests.swift")
        #expect(artifact["uriBaseId"] as? String == "%SRCROOT%")
        #expect((location["region"] as? [String: Any])?["startLine"] as? Int == 20)
        #expect((cycle["relatedLocations"] as? [Any])?.count == 4)
        let flow = try #require(((cycle["codeFlows"] as? [[String: Any]])?.first?["threadFlows"] as? [[String: Any]])?.first)
        #expect((flow["locations"] as? [Any])?.count == 3)
    }

    @Test func suppressListShowsExpiredRulesAndRemoveDeletes() throws {
        let list = try CLI.run(["suppress", "list"], in: repository.url, environment: server.environment)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("#1  type App.ImageLoader  \"loader kept on purpose, APP-12\"  expires 2099-01-01T00:00:00.000Z  added by ana@example.com"))
        #expect(list.stdout.contains("#2  fingerprint fp-tick*  \"ticker until the rewrite\"  EXPIRED 2020-01-01T00:00:00.000Z  added by ana@example.com"))
        let removed = try CLI.run(["suppress", "remove", "1"], in: repository.url, environment: server.environment)
        #expect(removed.status == 0)
        #expect(removed.stdout == "Removed suppression #1 from project 'app'.\n")
        let after = try diff("text")
        #expect(after.stdout.contains("New leaks (8 in 4 root causes)"))
        let again = try CLI.run(["suppress", "remove", "1"], in: repository.url, environment: server.environment)
        #expect(again.status == 2)
        #expect(again.stderr.contains("project \"app\" has no suppression 1"))
    }

    @Test func suppressAddWarnsWhenTheRuleHasExpiredAlready() throws {
        let past = try CLI.run(["suppress", "add", "--type", "App.Old", "--reason", "x", "--expires", "2021-03-01"],
                               in: repository.url, environment: server.environment)
        #expect(past.status == 0, "\(past.stderr)")
        #expect(past.stderr.contains("Warning: suppression #3 expired already (2021-03-01 is in the past): it covers nothing"))
        let future = try CLI.run(["suppress", "add", "--type", "App.New", "--reason", "x", "--expires", "2099-03-01"],
                                 in: repository.url, environment: server.environment)
        #expect(future.status == 0)
        #expect(!future.stderr.contains("Warning"))
    }

    @Test func suppressRefusesAnIncompleteRuleBeforeAskingTheServer() throws {
        let noPattern = try CLI.run(["suppress", "add", "--reason", "x"], in: repository.url, environment: server.environment)
        #expect(noPattern.status == 2)
        #expect(noPattern.stderr.contains("add needs at least one of --type, --scenario, --fingerprint"))
        let badDate = try CLI.run(["suppress", "add", "--type", "A", "--reason", "x", "--expires", "soon"], in: repository.url,
                                  environment: server.environment)
        #expect(badDate.status == 2)
        #expect(badDate.stderr.contains("'soon' is not a valid value for '--expires <date>'"))
        let ci = try CLI.run(["suppress", "add", "--type", "A", "--reason", "x"], in: repository.url,
                             environment: server.environment.merging(["GITHUB_ACTOR": "octocat"]) { $1 })
        #expect(ci.stdout.hasSuffix(", no expiry, added by octocat.\n"), "\(ci.stdout)")
    }

    @Test func theLinkOpensTheSamePageTheCLIDescribes() throws {
        let page = try server.client.get(String(link.dropFirst("http://127.0.0.1:\(server.port)".count)))
        #expect(page.status == 200)
        #expect(count("<tr data-category=\"new\"", in: page.text) == 3)
        #expect(page.text.contains("data-fingerprint=\"fp-cycle\""))
    }

    private func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }
}

/// The published SARIF 2.1.0 schema (OASIS, errata 01), vendored in the test resources, and
/// Python's `jsonschema` (installed by `.ci/install-deps` for the tests) to check a log with it.
enum SARIFSchema {
    static var path: String {
        Bundle.module.path(forResource: "sarif-schema-2.1.0", ofType: "json") ?? "missing sarif-schema-2.1.0.json"
    }

    static func validate(_ log: String) throws {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1])); log = json.load(open(sys.argv[2]))
            errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=lambda e: list(e.path))
            for e in errors: print("/".join(map(str, e.path)) + ": " + e.message)
            sys.exit(1 if errors else 0)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, log]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError("the SARIF log does not pass the SARIF 2.1.0 schema (python3 -m jsonschema; `make deps` installs it):\n\(text)")
        }
    }
}
