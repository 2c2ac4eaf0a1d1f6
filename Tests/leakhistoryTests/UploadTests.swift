import Foundation
import Testing
import LeakReport

/// `leakhistory upload` against a real server and a real git repository.
@Suite struct UploadTests {
    let repository: GitFixture
    let server: TestServer
    let commit: String

    init() throws {
        repository = try GitFixture()
        try repository.commit("first")
        commit = try repository.commit("second")
        server = try TestServer()
        try FileManager.default.createDirectory(at: repository.url.appendingPathComponent(".build/leakhistory"), withIntermediateDirectories: true)
        try repository.folder.report(".build/leakhistory/leakcheck-1.ndjson", [
            check("ProfileTests/open()", "App.ProfileViewModel", .leaked),
            check("ProfileTests/close()", "App.ProfileViewModel", .deallocated),
        ])
    }

    @Test func uploadsTheDefaultReportFolderOnce() throws {
        let first = try CLI.run(["upload"], in: repository.url, environment: server.environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Uploaded run"))
        #expect(first.stdout.contains("2 checks, 1 leaked"))
        #expect(first.stdout.contains("commit \(commit.prefix(10)) on main"))

        let again = try CLI.run(["upload"], in: repository.url, environment: server.environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("Already uploaded as run"))
        #expect(try server.count("runs") == 1)
        // The leak is stored whole, once; the passing check only in its key's counts.
        #expect(try server.count("checks") == 1)
        #expect(try server.store.read { try $0.scalarInt("SELECT sum(checked_count) FROM leak_states") } == 2)
        let stored = try server.store.read { try $0.scalarInt("SELECT count(*) FROM commits WHERE sha = ?", [.text(commit)]) }
        #expect(stored == 1)
        #expect(try server.store.read { try $0.scalarInt("SELECT count(*) FROM commit_parents") } == 1)
    }

    @Test func onlyTheNewestTestRunsFilesAreUploaded() throws {
        let folder = repository.url.appendingPathComponent(".build/leakhistory")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("leakcheck-1.ndjson"))
        // An earlier `swift test` (runner 111) left a file; this run's two processes (runner 222) wrote two.
        let old = try repository.folder.report(".build/leakhistory/leakcheck-20261130010000-111-5.ndjson", [
            check("OldTests/gone()", "App.Old", .leaked),
        ])
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: old)
        try repository.folder.report(".build/leakhistory/leakcheck-20261130020000-222-6.ndjson", [
            check("ProfileTests/open()", "App.ProfileViewModel", .leaked),
        ])
        try repository.folder.report(".build/leakhistory/leakcheck-20261130020001-222-7.ndjson", [
            check("ProfileTests/close()", "App.ProfileViewModel", .deallocated),
        ])
        let result = try CLI.run(["upload"], in: repository.url, environment: server.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 checks, 1 leaked"))
        #expect(result.stderr.contains("skipped 1 report file of other test runs (leakcheck-20261130010000-111-5.ndjson)"))
        #expect(try server.store.read { try $0.scalarInt("SELECT count(*) FROM types WHERE name = 'App.Old'") } == 0)
    }

    /// An Xcode project (no package folder) whose tests ran on simulator clones with the README's
    /// recipe: `upload` finds the simulators' default folder, takes both clones' files of the run
    /// and no other run's, and records the commit the build was made from, not HEAD.
    @Test func anXcodeRunsSimulatorFilesAreFoundWithTheCommitTheyRecorded() throws {
        try FileManager.default.removeItem(at: repository.url.appendingPathComponent(".build/leakhistory"))
        let head = try repository.commit("third: HEAD moved on after the build")
        let folder = "home/Library/Developer/LeakHistory/"
        try repository.folder.report(folder + "leakcheck-20261130020000-xcodebuild_7-11.8c3a1f20-\(commit).ndjson", [
            check("ProfileTests/open()", "App.ProfileViewModel", .leaked),
        ])
        try repository.folder.report(folder + "leakcheck-20261130020001-xcodebuild_7-12.d41f88aa-\(commit).ndjson", [
            check("ProfileTests/close()", "App.ProfileViewModel", .deallocated),
        ])
        // Another project's run on the same Mac, written later.
        try repository.folder.report(folder + "leakcheck-20261130030000-_-13.ndjson", [check("OtherTests/x()", "Other.Thing", .leaked)])
        let environment = server.environment.merging(["HOME": repository.folder.path("home"), "LEAKHISTORY_RUN_ID": "xcodebuild 7"]) { $1 }
        let result = try CLI.run(["upload"], in: repository.url, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 checks, 1 leaked"))
        #expect(result.stdout.contains("commit \(commit.prefix(10))"), "the build's commit, not HEAD \(head.prefix(10))")
        #expect(result.stderr.contains("skipped 1 report file of other test runs (leakcheck-20261130030000-_-13.ndjson)"))
        #expect(try server.store.read { try $0.scalarInt("SELECT count(*) FROM types WHERE name = 'Other.Thing'") } == 0)
    }

    @Test func githubPullRequestUsesTheHeadCommitAndJobKey() throws {
        let prHead = commit
        try repository.git("checkout", "-q", "-b", "feature")
        let mergeLike = try repository.commit("merge commit GitHub would make")
        let event = repository.folder.path("event.json")
        try #"{"pull_request":{"head":{"sha":"\#(prHead)"}}}"#.write(toFile: event, atomically: true, encoding: .utf8)
        var environment = server.environment
        environment.merge([
            "GITHUB_ACTIONS": "true", "GITHUB_SHA": mergeLike, "GITHUB_EVENT_PATH": event, "GITHUB_HEAD_REF": "feature",
            "GITHUB_REF_NAME": "12/merge", "GITHUB_RUN_ID": "777", "GITHUB_JOB": "test", "GITHUB_RUN_ATTEMPT": "2",
        ]) { $1 }
        let result = try CLI.run(["upload", "--format", "json"], in: repository.url, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let stored = try server.store.read { db in
            try db.scalarInt("SELECT count(*) FROM runs JOIN commits ON commits.id = runs.commit_id WHERE commits.sha = ? AND runs.run_key = ? AND runs.branch = ?",
                             [.text(prHead), .text("github-777-test-2-default"), .text("feature")])
        }
        #expect(stored == 1)
    }

    /// A CI matrix's legs share the job and attempt, and the same reports may be sent for a
    /// second environment: each environment is a run of its own, and a retry still stores once.
    @Test func eachEnvironmentIsARunOfItsOwnLocallyAndInACIMatrix() throws {
        for ci in [[:], ["GITHUB_ACTIONS": "true", "GITHUB_SHA": commit, "GITHUB_REF_NAME": "main",
                         "GITHUB_RUN_ID": "5", "GITHUB_JOB": "test", "GITHUB_RUN_ATTEMPT": "1"]] {
            for environment in ["linux-swift6.2", "linux-swift6.3", "linux-swift6.3"] {
                let result = try CLI.run(["upload", "--environment", environment], in: repository.url,
                                         environment: server.environment.merging(ci) { $1 })
                #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            }
        }
        #expect(try server.count("runs") == 4)
    }

    @Test func wrongTokenIsAConfigurationError() throws {
        var environment = server.environment
        environment["LEAKHISTORY_TOKEN"] = "lh_not_a_real_token"
        let result = try CLI.run(["upload"], in: repository.url, environment: environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("refused POST /v1/projects/app/runs with 401"))
        #expect(result.stderr.contains("LEAKHISTORY_TOKEN"))
        #expect(try server.count("runs") == 0)
    }

    @Test func unreachableServerExits3AndNamesTheURL() throws {
        var environment = server.environment
        let url = "http://127.0.0.1:\(closedPort())"
        environment["LEAKHISTORY_SERVER"] = url
        let result = try CLI.run(["upload"], in: repository.url, environment: environment)
        #expect(result.status == 3)
        #expect(result.stderr.contains("Cannot reach the LeakHistory server at \(url)"))
    }

    @Test func unknownRevisionIsNamed() throws {
        let result = try CLI.run(["diff", "nope..HEAD"], in: repository.url, environment: server.environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("Unknown revision 'nope'"))
    }

    @Test func noReportsSaysToRunTheTests() throws {
        try FileManager.default.removeItem(at: repository.url.appendingPathComponent(".build/leakhistory/leakcheck-1.ndjson"))
        let result = try CLI.run(["upload"], in: repository.url, environment: server.environment)
        #expect(result.status == 2)
        #expect(result.stderr.contains("No checks in"))
    }
}
