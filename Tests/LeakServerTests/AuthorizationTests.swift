import Foundation
import LeakServer
import Testing

@Suite("Tokens on uploads and reads")
struct AuthorizationTests {
    @Test func noTokenIsA401() throws {
        let server = try TestServer()
        let reply = try server.upload(RunFixture.body(), headers: [:])
        #expect(reply.status == 401)
        #expect(reply.headers["www-authenticate"] == "Bearer")
        #expect(reply.error?.message.contains("needs `Authorization: Bearer <write token>` for project \"app\"") == true)
        #expect(try server.nothingStored())
    }

    /// The usual `Bearer <token>` is read as bytes, anything else the general way; both agree.
    @Test(arguments: [("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER abc", "abc"), ("Bearer  abc ", "abc"),
                      ("Bearer a b", "a b"), ("Bearer \t", nil), ("Bearer", nil), ("Bearer ", nil), ("Basic abc", nil),
                      ("Bearerabc", nil)] as [(String, String?)])
    func theBearerTokenIsTheAuthorizationAfterItsScheme(_ header: String, _ token: String?) {
        #expect(Request(method: "GET", path: "/", headers: ["Authorization": header]).bearerToken == token)
    }

    @Test func anUnknownTokenIsA401() throws {
        let server = try TestServer()
        for token in ["nonsense", "lh_1_" + String(repeating: "0", count: 64), "lh_999_" + String(repeating: "a", count: 64)] {
            let reply = try server.upload(RunFixture.body(), headers: ["Authorization": "Bearer \(token)"])
            #expect(reply.status == 401, "\(token)")
            #expect(reply.error?.message.contains("not known to this server") == true)
        }
        #expect(try server.nothingStored())
    }

    @Test func aRevokedTokenIsA401() throws {
        let server = try TestServer()
        let issued = try server.store.createToken(project: "app")
        try server.store.revokeToken(id: issued.id)
        let reply = try server.upload(RunFixture.body(), headers: ["Authorization": "Bearer \(issued.secret)"])
        #expect(reply.status == 401)
        #expect(reply.error?.message.contains("token \(issued.id) was revoked") == true)
        #expect(try server.nothingStored())
    }

    @Test func anotherProjectsTokenIsA403() throws {
        let server = try TestServer()
        let other = try server.store.createProject("other")
        let reply = try server.upload(RunFixture.body(), headers: ["Authorization": "Bearer \(other.secret)"])
        #expect(reply.status == 403)
        #expect(reply.error?.message == "the token belongs to project \"other\", not \"app\"")
        #expect(try server.nothingStored())
    }

    @Test func aReadTokenCannotUpload() throws {
        let server = try TestServer()
        let read = try server.store.createToken(project: "app", scope: .read)
        let reply = try server.upload(RunFixture.body(), headers: ["Authorization": "Bearer \(read.secret)"])
        #expect(reply.status == 403)
        #expect(try server.nothingStored())
    }

    @Test func anUnknownProjectIsA404() throws {
        let server = try TestServer()
        let reply = try server.client.post("/v1/projects/ghost/runs", body: RunFixture.data(RunFixture.run(project: "ghost")),
                                           headers: ["Authorization": "Bearer \(server.token)"])
        #expect(reply.status == 404)
        #expect(reply.error?.code == "project_not_found")
        #expect(reply.error?.message.contains("projects create ghost") == true)
        #expect(try server.nothingStored())
    }

    @Test func readsAreOpenByDefaultAndNeedATokenWhenConfigured() throws {
        let open = try TestServer()
        _ = try open.upload(RunFixture.body())
        let path = "/v1/projects/app/commits/\(RunFixture.commit)"
        let reply = try open.client.get(path)
        #expect(reply.status == 200, "\(reply.text)")
        #expect((reply.json["runs"] as? [[String: Any]])?.first?["runKey"] as? String == "ci-1")
        #expect(reply.json["parents"] as? [String] == [RunFixture.parent])

        let closed = try TestServer { $0.requireReadToken = true }
        _ = try closed.upload(RunFixture.body())
        #expect(try closed.client.get(path).status == 401)
        let read = try closed.store.createToken(project: "app", scope: .read)
        #expect(try closed.client.get(path, headers: ["Authorization": "Bearer \(read.secret)"]).status == 200)
    }
}
