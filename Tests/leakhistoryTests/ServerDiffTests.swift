import Foundation
import Testing
import LeakReport

/// `diff`, `check`, `trend` and `types` end to end: a real server, a real git history with
/// branches and merges, uploads made by the CLI itself.
@Suite struct ServerDiffTests {
    let repository: GitFixture
    let server: TestServer
    /// main: c1 - c2 - c3;  feature branches from c2: f1.
    var c1 = "", c2 = "", c3 = "", f1 = ""

    init() throws {
        repository = try GitFixture()
        server = try TestServer()
        c1 = try repository.commit("c1")
        try upload(at: c1, [check("ProfileTests/open()", "App.ProfileViewModel", .deallocated),
                            check("CacheTests/fill()", "App.ImageCache", .leaked)])
        c2 = try repository.commit("c2")
        try upload(at: c2, [check("ProfileTests/open()", "App.ProfileViewModel", .deallocated),
                            check("CacheTests/fill()", "App.ImageCache", .leaked)])
        c3 = try repository.commit("c3")
        try repository.git("checkout", "-q", "-b", "feature", c2)
        f1 = try repository.commit("f1")
        try upload(at: f1, [check("ProfileTests/open()", "App.ProfileViewModel", .leaked, line: 42),
                            check("CacheTests/fill()", "App.ImageCache", .deallocated)])
    }

    /// Uploads `checks` as the run of `commit` through the CLI.
    func upload(at commit: String, _ checks: [CheckRecord], environment extra: [String: String] = [:]) throws {
        let report = try repository.folder.report("upload-\(commit.prefix(8)).ndjson", checks)
        let result = try CLI.run(["upload", report, "--commit", commit], in: repository.url, environment: server.environment.merging(extra) { $1 })
        guard result.status == 0 else { throw FixtureError("upload failed: \(result.stderr)") }
    }

    @Test func newLeakAgainstTheMergeBase() throws {
        let result = try CLI.run(["diff", "main..HEAD"], in: repository.url, environment: server.environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("Base: \(c2.prefix(10)) (the merge-base)"))
        #expect(result.stdout.contains("New leaks (1)"))
        #expect(result.stdout.contains("App.ProfileViewModel  in ProfileTests/open()  at Tests/AppTests/ProfileTests.swift:42"))
        #expect(result.stdout.contains("Fixed (1)"))
    }

    @Test func threeDotRangeAndExplicitSides() throws {
        let dots = try CLI.run(["diff", "main...feature", "--format", "json"], in: repository.url, environment: server.environment)
        #expect(dots.status == 1, "\(dots.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(dots.stdout.utf8)) as? [String: Any])
        let base = try #require(object["base"] as? [String: Any])
        #expect(base["commit"] as? String == c2)
        #expect(base["distance"] as? Int == 0)
        let sides = try CLI.run(["diff", "--base", c1, "--head", c2], in: repository.url, environment: server.environment)
        #expect(sides.status == 0, "\(sides.stderr)")
        #expect(sides.stdout.contains("OK: no new leaks."))
    }

    @Test func baseFallsBackToAnAncestorWithData() throws {
        // g1 branches from c3, which has no upload: the base is c2, one first-parent step back.
        try repository.git("checkout", "-q", "-b", "other", c3)
        let g1 = try repository.commit("g1")
        try upload(at: g1, [check("ProfileTests/open()", "App.ProfileViewModel", .deallocated)])
        let result = try CLI.run(["diff", "main..HEAD"], in: repository.url, environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Base: \(c2.prefix(10)) (1 first-parent commit before the merge-base \(c3.prefix(10)), which has no upload)"))
    }

    @Test func noBaseWarnsPassesOrFailsAsAsked() throws {
        var environment = server.environment
        environment["LEAKHISTORY_ENVIRONMENT"] = "macos-swift6.3"   // nothing was uploaded for it
        let warn = try CLI.run(["diff", "main..HEAD"], in: repository.url, environment: environment)
        #expect(warn.status == 0)
        #expect(warn.stdout.contains("WARNING: no base"))
        let fail = try CLI.run(["diff", "main..HEAD", "--if-no-base", "fail"], in: repository.url, environment: environment)
        #expect(fail.status == 3)
        #expect(fail.stdout.contains("FAIL: no base"))
        let pass = try CLI.run(["diff", "main..HEAD", "--if-no-base", "pass", "--format", "json"], in: repository.url, environment: environment)
        #expect(pass.status == 0)
        #expect(pass.stdout.contains("\"result\" : \"noBase\""))
    }

    @Test func checkUploadsThenCompares() throws {
        let f2 = try repository.commit("f2")
        let reports = repository.url.appendingPathComponent(".build/leakhistory")
        try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
        try repository.folder.report(".build/leakhistory/leakcheck-9.ndjson", [
            check("ProfileTests/open()", "App.ProfileViewModel", .deallocated),
            check("CacheTests/fill()", "App.ImageCache", .leaked),
        ])
        let result = try CLI.run(["check", "--base", "main"], in: repository.url, environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Uploaded run"))
        #expect(result.stdout.contains("commit \(f2.prefix(10)) on feature"))
        // ImageCache leaked at c1 and c2 (the merge-base), was clean at f1 and leaks again here: it
        // leaks at the base, so it is persisting — the gate judges only keys not leaked at base.
        #expect(result.stdout.contains("Persisting (1)"))
        #expect(result.stdout.contains("OK: no new leaks."))
    }

    @Test func headWithoutUploadSaysToUploadFirst() throws {
        try repository.commit("f2 not uploaded")
        let result = try CLI.run(["diff", "main..HEAD"], in: repository.url, environment: server.environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("Nothing is uploaded for head"))
    }

    @Test func trendAndTypesFollowTheBranch() throws {
        let trend = try CLI.run(["trend", "App.ImageCache", "--branch", "main"], in: repository.url, environment: server.environment)
        #expect(trend.status == 0, "\(trend.stderr)")
        #expect(trend.stdout.contains("App.ImageCache on main:"))
        #expect(trend.stdout.contains(c1.prefix(10)))
        #expect(trend.stdout.contains(c2.prefix(10)))
        let types = try CLI.run(["types", "--branch", "main", "--format", "json"], in: repository.url, environment: server.environment)
        #expect(types.status == 0, "\(types.stderr)")
        #expect(types.stdout.contains("App.ImageCache"))
    }
}
