import Foundation
import Testing
import LeakReport

/// `leakhistory check --confirm-with`: new leaks that no check repeated are tested again by a
/// command (here a script standing in for `swift test`, writing the report lines LeakCheck
/// would), uploaded as more runs of the commit, and judged again — the real binary in a real git
/// history, against a real server.
@Suite struct ConfirmCLITests {
    let repository: GitFixture
    let server: TestServer
    /// The scripts and what they log, outside the repository.
    let scripts: TemporaryFolder
    static let profile = ("ProfileTests/open()", "App.ProfileViewModel")
    static let cache = ("CacheTests/fill()", "App.ImageCache")

    init() throws {
        repository = try GitFixture()
        server = try TestServer()
        scripts = try TemporaryFolder()
    }

    static func profile(_ outcome: CheckOutcome, attempts: Int? = nil) -> CheckRecord {
        var record = check(profile.0, profile.1, outcome)
        record.attempts = attempts
        return record
    }

    /// A main commit where the profile check passed, and a pull request commit on top of it.
    func cleanBaseAndAFeatureCommit() throws {
        let c1 = try repository.commit("c1")
        let report = try scripts.report("base.ndjson", [Self.profile(.deallocated), check(Self.cache.0, Self.cache.1, .deallocated)])
        let upload = try CLI.run(["upload", report, "--commit", c1], in: repository.url, environment: server.environment)
        guard upload.status == 0 else { throw FixtureError("upload failed: \(upload.stderr)") }
        try repository.git("checkout", "-q", "-b", "feature")
        try repository.commit("f1")
    }

    /// A test command that logs its arguments and environment, then writes `reruns[n]` (its
    /// n-th run's checks, the last one again after that) where LeakCheck would.
    func testCommand(_ reruns: [[CheckRecord]]) throws -> String {
        for (index, checks) in reruns.enumerated() {
            try scripts.report("rerun-\(index).ndjson", checks)
        }
        let script = """
            log='\(scripts.path("log"))'
            echo "run: $* report=$LEAKHISTORY_REPORT only=$LEAKHISTORY_REPORT_ONLY xcode=$TEST_RUNNER_LEAKHISTORY_REPORT" >> "$log"
            n=$(grep -c '^run:' "$log")
            source='\(scripts.path("rerun-"))'$(( n > \(reruns.count) ? \(reruns.count - 1) : n - 1 )).ndjson
            cp "$source" "${LEAKHISTORY_REPORT}leakcheck-rerun.ndjson"
            echo "the test runner's own output"
            """
        try script.write(toFile: scripts.path("fake-test.sh"), atomically: true, encoding: .utf8)
        return "sh '\(scripts.path("fake-test.sh"))' --filter {filter}"
    }

    var log: [String] {
        ((try? String(contentsOfFile: scripts.path("log"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func runCheck(_ checks: [CheckRecord], format: String = "text", _ extra: [String]) throws -> CLIResult {
        let report = try scripts.report("head-\(UUID().uuidString).ndjson", checks)
        return try CLI.run(["check", report, "--base", "main", "--format", format] + extra,
                           in: repository.url, environment: server.environment)
    }

    @Test func aLeakThatAReRunReleasesIsFlakyAndPasses() throws {
        try cleanBaseAndAFeatureCommit()
        let command = try testCommand([[Self.profile(.deallocated)]])
        let result = try runCheck([Self.profile(.leaked)], format: "json", ["--confirm-with", command])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                                  "standard output is the JSON result alone: \(result.stdout)")
        let entries = try #require(object["entries"] as? [[String: Any]])
        #expect(entries.first { $0["type"] as? String == Self.profile.1 }?["category"] as? String == "flaky")
        // One re-run, for just that scenario, its reports in a folder of its own, leaks recorded only.
        #expect(log.count == 1)
        #expect(log.first?.hasPrefix(#"run: --filter (^|[./])(ProfileTests/open)(\(|$) report=/"#) == true, "\(log)")
        #expect(log.first?.contains("/ only=1 xcode=/") == true, "a folder for LeakCheck and for xcodebuild's test runner: \(log)")
        #expect(result.stderr.contains("Confirming 1 new leak that no check repeated (re-run 1 of 2)"))
        #expect(result.stderr.contains("the test runner's own output"))
        #expect(result.stderr.contains("App.ProfileViewModel in ProfileTests/open(): no longer new after re-run 1 (now flaky)"))
        #expect(try server.count("runs") == 3, "the base, the head, and the re-run as one more run of the head")
    }

    @Test func aLeakThatLeaksInEveryReRunStaysNewAndFails() throws {
        try cleanBaseAndAFeatureCommit()
        let command = try testCommand([[Self.profile(.leaked)]])
        let result = try runCheck([Self.profile(.leaked), check(Self.cache.0, Self.cache.1, .deallocated)],
                                  ["--confirm-with", command, "--confirm-runs", "2"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("New leaks (1)"))
        #expect(log.count == 2, "re-run as often as --confirm-runs allows while the leak stays new: \(log)")
        #expect(result.stderr.contains("App.ProfileViewModel in ProfileTests/open(): leaked again in every re-run; it stays new."))
        #expect(try server.count("runs") == 4)
    }

    @Test func aLeakLeakCheckConfirmedInAttemptsIsNotReRun() throws {
        try cleanBaseAndAFeatureCommit()
        let command = try testCommand([[Self.profile(.deallocated)]])
        var confirmed = Self.profile(.leaked, attempts: 3)
        confirmed.leakedAttempts = 3
        let result = try runCheck([confirmed], ["--confirm-with", command])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("New leaks (1)"))
        #expect(log.isEmpty, "LeakCheck's attempts confirmed it already: \(log)")
        #expect(!result.stderr.contains("Confirming"))
    }

    @Test func aCommandThatWritesNoReportLeavesTheLeakNew() throws {
        try cleanBaseAndAFeatureCommit()
        let result = try runCheck([Self.profile(.leaked)], ["--confirm-with", "echo {scenarios}; exit 4"])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("New leaks (1)"))
        #expect(result.stderr.contains("ProfileTests/open()"))
        #expect(result.stderr.contains("The command wrote no leak report (exit status 4), so nothing was confirmed and the leaks stay new."))
    }

    @Test(arguments: [
        (["--confirm-with", "swift test --filter {filtr}"], "Error: Unknown placeholder '{filtr}' in '--confirm-with'"),
        (["--confirm-with", "swift test --filter {filter}", "--confirm-runs", "0"],
         "Error: '0' is not a valid value for '--confirm-runs <n>'; use a number from 1 to 10"),
        (["--confirm-runs", "2"], "Error: '--confirm-runs 2' needs '--confirm-with <command>'"),
    ])
    func aBadConfirmationIsAUsageError(arguments: [String], message: String) throws {
        try cleanBaseAndAFeatureCommit()
        let result = try runCheck([Self.profile(.leaked)], arguments)
        #expect(result.status == 2, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(result.stderr.contains("See 'leakhistory check --help'."))
    }
}
