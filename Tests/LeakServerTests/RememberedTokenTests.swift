import Foundation
import LeakServer
import LeakStore
import Testing

/// A token found live is remembered (`tokenMemorySeconds`), so that an upload with it has its
/// body read on its headers; the database still has the last word before anything is stored,
/// and nothing but a live token is ever admitted before a worker has checked it.
///
/// "Refused on its headers" is told apart from "admitted" by announcing a body and sending none:
/// a refusal comes at once and closes the connection, an admitted request waits for its body.
@Suite("Tokens remembered as live")
struct RememberedTokenTests {
    /// The head of an upload announcing a 1 MB body, without the body.
    static func announcedUpload(_ server: TestServer, token: String) -> Data {
        AvailabilityTests.head("POST", server.runsPath, ["Content-Length: 1000000", "Authorization: Bearer \(token)"])
    }

    static func tokenID(_ server: TestServer) throws -> Int64 {
        try #require(try server.store.tokens(project: server.project).first?.id)
    }

    @Test func aRememberedTokenRevokedThroughTheServersStoreIsRefusedOnItsHeaders() throws {
        let server = try TestServer()
        #expect(try server.upload(RunFixture.body()).status == 201)
        #expect(server.store.rememberedToken(server.token) != nil)
        try server.store.revokeToken(id: try Self.tokenID(server))
        #expect(server.store.rememberedToken(server.token) == nil)
        let (replies, closed) = try server.client.exchange(Self.announcedUpload(server, token: server.token), seconds: 5)
        #expect(replies.map(\.status) == [401])
        #expect(closed)
    }

    /// Revoked by `leakhistory-server tokens revoke`, another process on the same database: the
    /// server's memory cannot know, so the next upload's body is read, the check against the
    /// database in the transaction that would store it refuses it (nothing stored), and the token
    /// is forgotten: the one after is refused on its headers.
    @Test(arguments: TestEngine.all)
    func aRememberedTokenRevokedByAnotherProcessIsRefusedBeforeAnythingIsStored(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        #expect(try server.upload(RunFixture.body(runKey: "before")).status == 201)
        let before = try server.rowCounts()
        let revoke = try ServerProcess().command(["--database", database.location, "tokens", "revoke", "\(try Self.tokenID(server))"])
        #expect(revoke.status == 0, "\(revoke.stderr)")
        #expect(server.store.rememberedToken(server.token) != nil, "the other process cannot reach this server's memory")

        let refused = try server.upload(RunFixture.body(runKey: "after"))
        #expect(refused.status == 401)
        #expect(refused.error?.message.contains("was revoked") == true)
        #expect(try server.rowCounts() == before)
        #expect(server.store.rememberedToken(server.token) == nil)
        let (replies, closed) = try server.client.exchange(Self.announcedUpload(server, token: server.token), seconds: 5)
        #expect(replies.map(\.status) == [401])
        #expect(closed)
    }

    /// The memory is keyed by the whole token's hash: the id of a remembered token with another
    /// secret is still refused before its body is read, and so is any other unknown token.
    @Test func anUnknownTokenIsRefusedOnItsHeadersWhileAnotherIsRemembered() throws {
        let server = try TestServer()
        #expect(try server.upload(RunFixture.body()).status == 201)
        let id = try Self.tokenID(server)
        for token in ["lh_\(id)_" + String(repeating: "0", count: 64), "lh_999_" + String(repeating: "a", count: 64), "nonsense"] {
            let (replies, closed) = try server.client.exchange(Self.announcedUpload(server, token: token), seconds: 5)
            #expect(replies.map(\.status) == [401], "\(token)")
            #expect(closed, "\(token)")
        }
        #expect(try server.rowCounts()["runs"] == 1)
    }

    /// Another project's or a read token, even remembered, is checked on a worker and refused on its headers.
    @Test func aRememberedTokenOfAnotherProjectOrScopeIsRefusedOnItsHeaders() throws {
        let server = try TestServer()
        let other = try server.store.createProject("other")
        let read = try server.store.createToken(project: "app", scope: .read)
        for token in [other.secret, read.secret] {
            #expect(try server.store.verifyToken(token) != .unknown)
            #expect(server.store.rememberedToken(token) != nil)
            let (replies, closed) = try server.client.exchange(Self.announcedUpload(server, token: token), seconds: 5)
            #expect(replies.map(\.status) == [403])
            #expect(closed)
        }
    }

    @Test func aRememberedTokenExpires() throws {
        let server = try TestServer { $0.tokenMemorySeconds = 1 }
        #expect(try server.upload(RunFixture.body()).status == 201)
        // Revoked behind the server's back, through a store of its own on the same file.
        try LeakStore(database: server.server.configuration.database).revokeToken(id: try Self.tokenID(server))
        #expect(server.store.rememberedToken(server.token) != nil)
        usleep(1_300_000)
        #expect(server.store.rememberedToken(server.token) == nil)
        let (replies, closed) = try server.client.exchange(Self.announcedUpload(server, token: server.token), seconds: 5)
        #expect(replies.map(\.status) == [401])
        #expect(closed)
    }

    @Test func zeroSecondsRemembersNothing() throws {
        let server = try TestServer { $0.tokenMemorySeconds = 0 }
        #expect(try server.upload(RunFixture.body()).status == 201)
        #expect(server.store.rememberedToken(server.token) == nil)
        #expect(try server.upload(RunFixture.body(runKey: "ci-2")).status == 201)
    }
}
