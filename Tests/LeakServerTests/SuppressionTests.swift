import Foundation
import LeakReport
import Testing

@Suite("Suppressions")
struct SuppressionTests {
    let path = "/v1/projects/app/suppressions"

    func create(_ server: TestServer, _ object: [String: Any]) throws -> HTTPClient.Reply {
        try server.client.post(path, body: RunFixture.data(object), headers: server.writeHeaders)
    }

    /// base 1 clean, head 2 leaked: the key is new unless a suppression covers it.
    func leakAtHead(_ server: TestServer) throws {
        try server.uploadRun(commit: HistoryFixture.sha(1), checks: [.clean("ProfileTests/open()", "App.ProfileModel")])
        try server.uploadRun(commit: HistoryFixture.sha(2), checks: [.leaked("ProfileTests/open()", "App.ProfileModel", fingerprint: "fp-9")])
    }

    @Test(arguments: [
        ["type": "App.*Model"], ["scenario": "ProfileTests/*"], ["fingerprint": "fp-*"],
        ["type": "App.ProfileModel", "scenario": "Profile*", "fingerprint": "fp-9"],
    ])
    func anActiveSuppressionMovesANewLeakToSuppressed(_ patterns: [String: String]) throws {
        let server = try TestServer()
        try leakAtHead(server)
        var body: [String: Any] = patterns
        body["reason"] = "tracked in APP-12"
        let reply = try create(server, body)
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply.json["active"] as? Bool == true)
        let entry = try #require(try server.diff(base: 1, head: 2).entry("ProfileTests/open()", "App.ProfileModel"))
        #expect(entry.category == .suppressed)
        #expect(entry.suppressedBecause == "tracked in APP-12")
    }

    @Test func aSuppressionThatMatchesOnlyPartlyDoesNothing() throws {
        let server = try TestServer()
        try leakAtHead(server)
        #expect(try create(server, ["type": "App.ProfileModel", "scenario": "Settings*", "reason": "no"]).status == 201)
        #expect(try server.diff(base: 1, head: 2).entry("ProfileTests/open()", "App.ProfileModel")?.category == .new)
    }

    @Test func anExpiredSuppressionNoLongerApplies() throws {
        let server = try TestServer()
        try leakAtHead(server)
        let reply = try create(server, ["type": "App.ProfileModel", "reason": "old", "expiresAt": "2001-01-01T00:00:00Z"])
        #expect(reply.status == 201)
        #expect(reply.json["active"] as? Bool == false)
        #expect(reply.json["expiresAt"] as? String == "2001-01-01T00:00:00.000Z")
        #expect(try server.diff(base: 1, head: 2).entry("ProfileTests/open()", "App.ProfileModel")?.category == .new)
        let future = try create(server, ["type": "App.ProfileModel", "reason": "until next year", "expiresAt": "2999-01-01T00:00:00Z"])
        #expect(future.json["active"] as? Bool == true)
        #expect(try server.diff(base: 1, head: 2).entry("ProfileTests/open()", "App.ProfileModel")?.category == .suppressed)
    }

    @Test func listAndDelete() throws {
        let server = try TestServer()
        try leakAtHead(server)
        let id = try #require(try create(server, ["type": "App.ProfileModel", "reason": "known"]).json["id"] as? Int)
        let list = try server.client.get(path)
        #expect(list.status == 200)
        let listed = try #require(list.json["suppressions"] as? [[String: Any]])
        #expect(listed.map { $0["id"] as? Int } == [id])
        #expect(listed.first?["reason"] as? String == "known")

        #expect(try server.client.send("DELETE", "\(path)/\(id)", body: nil).status == 401)
        #expect(try server.client.send("DELETE", "\(path)/\(id)", headers: server.writeHeaders, body: nil).status == 204)
        #expect(try server.client.send("DELETE", "\(path)/\(id)", headers: server.writeHeaders, body: nil).status == 404)
        #expect(try server.diff(base: 1, head: 2).entry("ProfileTests/open()", "App.ProfileModel")?.category == .new)
        #expect((try server.client.get(path).json["suppressions"] as? [Any])?.isEmpty == true)
    }

    @Test func anotherProjectsSuppressionIsNotFoundAndDoesNotApply() throws {
        let server = try TestServer()
        try leakAtHead(server)
        let webToken = try server.store.createProject("web").secret
        let web = ["Authorization": "Bearer \(webToken)"]
        let reply = try server.client.post("/v1/projects/web/suppressions",
                                           body: RunFixture.data(["type": "*", "reason": "web only"]), headers: web)
        let id = try #require(reply.json["id"] as? Int)
        #expect(try server.diff(base: 1, head: 2).entry("ProfileTests/open()", "App.ProfileModel")?.category == .new)
        #expect(try server.client.send("DELETE", "\(path)/\(id)", headers: server.writeHeaders, body: nil).status == 404)
    }

    @Test(arguments: [
        (["reason": "no pattern"], "at least one pattern"),
        (["type": "App.X"], "reason"),
        (["type": "App.X", "reason": ""], "reason"),
        (["type": "", "reason": "empty"], "type"),
        (["type": "App.X", "reason": "r", "expiresAt": "next week"], "expiresAt"),
        (["type": "App.X", "reason": "r", "expiresAt": "2024-01-01T12:99:00Z"], "expiresAt"),
        // No November 31st: Foundation would roll it over to December 1st.
        (["type": "App.X", "reason": "r", "expiresAt": "4908-11-31T00:00:00Z"], "expiresAt"),
        (["type": "App.X", "reason": "r", "expiresAt": "4908-11-31T00:00:00+01:00"], "expiresAt"),
        (["type": "App.X\u{0}Y", "reason": "r"], "type"),
    ])
    func aBadSuppressionIsA400NamingTheField(_ body: [String: String], _ named: String) throws {
        let server = try TestServer()
        let reply = try create(server, body)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.error?.message.contains(named) == true, "\(reply.text)")
        #expect(try server.store.suppressions(project: "app").isEmpty)
    }

    @Test func creatingNeedsAWriteToken() throws {
        let server = try TestServer()
        let reply = try server.client.post(path, body: RunFixture.data(["type": "*", "reason": "r"]))
        #expect(reply.status == 401)
    }
}
