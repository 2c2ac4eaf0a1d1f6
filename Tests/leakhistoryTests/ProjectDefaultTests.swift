import Foundation
import Testing
import LeakReport

/// A command given no project asks the server which it has: `default` when it is the only one,
/// otherwise it says which exist. Real server, real binary.
@Suite struct ProjectDefaultTests {
    @Test func theOnlyProjectDefaultIsUsed() throws {
        let repository = try GitFixture()
        try repository.commit("first")
        let server = try TestServer(project: "default")
        var environment = server.environment
        environment["LEAKHISTORY_PROJECT"] = nil
        // With the token: the token's project.
        try FileManager.default.createDirectory(at: repository.url.appendingPathComponent(".build/leakhistory"), withIntermediateDirectories: true)
        try repository.folder.report(".build/leakhistory/leakcheck-1.ndjson", [check("ProfileTests/open()", "App.ProfileViewModel", .leaked)])
        let upload = try CLI.run(["upload"], in: repository.url, environment: environment)
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(try server.count("runs") == 1)
        // Without a token, reads open: the server's projects.
        environment["LEAKHISTORY_TOKEN"] = nil
        let types = try CLI.run(["types", "--branch", "main", "--format", "json"], in: repository.url, environment: environment)
        #expect(types.status == 0, "\(types.stderr)")
        #expect(types.stdout.contains("App.ProfileViewModel"))
    }

    @Test func otherwiseTheProjectsAreNamed() throws {
        let repository = try GitFixture()
        try repository.commit("first")
        let server = try TestServer()
        _ = try server.store.createProject("web")
        var environment = server.environment
        environment["LEAKHISTORY_PROJECT"] = nil
        environment["LEAKHISTORY_TOKEN"] = nil
        let types = try CLI.run(["types"], in: repository.url, environment: environment)
        #expect(types.status == 2)
        #expect(types.stderr.contains("No project given, and the server has several: app, web. Pass --project NAME"), "\(types.stderr)")

        let answer = try server.client.get("/v1/projects", headers: ["Authorization": "Bearer \(server.token)"])
        #expect(answer.status == 200)
        #expect(try JSONDecoder().decode(ProjectsResponse.self, from: answer.body) == ProjectsResponse(projects: ["app"]))
    }
}
