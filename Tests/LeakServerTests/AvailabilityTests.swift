import Foundation
import LeakServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The headers decide before the body is read; framing that could smuggle a second request is
/// refused and the connection closed; a request must arrive within its deadline; one client
/// cannot take every connection.
@Suite("Hostile and careless clients")
struct AvailabilityTests {
    static func head(_ method: String, _ path: String, _ headers: [String] = []) -> Data {
        Data(([ "\(method) \(path) HTTP/1.1", "Host: 127.0.0.1" ] + headers + ["", ""]).joined(separator: "\r\n").utf8)
    }

    @Test func aTokenlessBodyIsRefusedOnItsHeadersAndTheConnectionClosed() throws {
        let server = try TestServer()
        // 30 MiB announced, not one byte sent: the answer must come from the headers alone.
        let (replies, closed) = try server.client.exchange(
            Self.head("POST", server.runsPath, ["Content-Length: \(30 * 1024 * 1024)", "Content-Type: application/json"]))
        #expect(replies.map(\.status) == [401])
        #expect(closed)
    }

    @Test func anUnknownTokenIsRefusedBeforeTheBodyIsRead() throws {
        let server = try TestServer()
        let (replies, closed) = try server.client.exchange(
            Self.head("POST", server.runsPath, ["Content-Length: 1000000", "Authorization: Bearer lh_999_" + String(repeating: "a", count: 64)]))
        #expect(replies.map(\.status) == [401])
        #expect(closed)
    }

    /// The token is checked before the body is read, so a small gzip body that inflates past the
    /// limit is a 401 with an unknown token (never inflated or parsed), a 413 only with the right one.
    @Test func aSmallBodyIsNeitherInflatedNorParsedForAnUnknownToken() throws {
        let server = try TestServer { $0.limits.maxDecompressedBytes = 1024 * 1024 }
        let bomb = gzipped(Data(repeating: UInt8(ascii: " "), count: 16 * 1024 * 1024))
        let unknown = "Bearer lh_999_" + String(repeating: "a", count: 64)
        let refused = try server.client.post(server.runsPath, body: bomb, headers: ["Content-Encoding": "gzip", "Authorization": unknown])
        #expect(refused.status == 401)
        let inflated = try server.client.post(server.runsPath, body: bomb,
                                              headers: ["Content-Encoding": "gzip", "Authorization": "Bearer \(server.token)"])
        #expect(inflated.status == 413)
        // Not JSON at all: with an unknown token that is never looked at either.
        #expect(try server.upload(Data("not json".utf8), headers: ["Authorization": unknown]).status == 401)
        #expect(try server.upload(Data("not json".utf8)).status == 400)
        #expect(try server.nothingStored())
    }

    @Test func anOversizedBodyIsRefusedOnItsHeaders() throws {
        let server = try TestServer()
        let (replies, closed) = try server.client.exchange(
            Self.head("POST", server.runsPath, ["Content-Length: \(64 * 1024 * 1024)", "Authorization: Bearer \(server.token)"]))
        #expect(replies.map(\.status) == [413])
        #expect(closed)
    }

    @Test func aGzipBombWithoutATokenIsNotInflated() throws {
        let server = try TestServer()
        let bomb = gzipped(Data(repeating: UInt8(ascii: " "), count: 64 * 1024 * 1024))
        let reply = try server.client.post(server.runsPath, body: bomb, headers: ["Content-Encoding": "gzip"])
        // 401, not the 413 that inflating it would give.
        #expect(reply.status == 401)
    }

    @Test(arguments: [
        ("chunked and a length", ["Transfer-Encoding: chunked", "Content-Length: 5"], 400),
        ("two different lengths", ["Content-Length: 5", "Content-Length: 40"], 400),
        ("two equal lengths", ["Content-Length: 5", "Content-Length: 5"], 400),
        ("an unknown transfer coding", ["Transfer-Encoding: gzip, chunked"], 501),
        ("a length that is not a number", ["Content-Length: 5x"], 400),
    ])
    func framingThatCouldSmuggleARequestIsRefusedAndClosed(_ name: String, _ headers: [String], _ status: Int) throws {
        let server = try TestServer()
        let smuggled = "0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let (replies, closed) = try server.client.exchange(
            Self.head("POST", "/v1/projects/app/resolve", headers) + Data(smuggled.utf8))
        // One answer only: the bytes after the bad request are never read as a second request.
        #expect(replies.map(\.status) == [status], "\(name)")
        #expect(closed, "\(name)")
    }

    @Test(arguments: ["/v1/projects/app/types?branch=main%00evil", "/p/app%00x", "/healthz?x=%00"])
    func aNULAnywhereInThePathOrQueryIsA400(_ target: String) throws {
        let server = try TestServer()
        let reply = try server.client.get(target)
        #expect(reply.status == 400)
        #expect(reply.error?.message.contains("%00") == true || reply.text.contains("%00"))
    }

    @Test func fullWidthDigitsAreNotHex() throws {
        let server = try TestServer()
        let fullWidth = String(repeating: "\u{FF10}", count: 40).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let commit = try server.client.get("/v1/projects/app/commits/\(fullWidth)")
        #expect(commit.status == 400)
        let diff = try server.client.get("/v1/projects/app/diff?base=\(fullWidth)&head=\(String(repeating: "a", count: 40))")
        #expect(diff.status == 400)
        #expect(diff.error?.message.contains("base: expected a 40-digit hex commit id") == true)
    }

    @Test func everyAnswerCarriesTheSecurityHeaders() throws {
        let server = try TestServer()
        for reply in [try server.client.get("/healthz"), try server.client.get("/nothing"), try server.client.get("/"),
                      try server.client.get("/p/nope")] {
            #expect(reply.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
            #expect(reply.headers["x-content-type-options"] == "nosniff")
            #expect(reply.headers["x-frame-options"] == "DENY")
            #expect(reply.headers["referrer-policy"] == "no-referrer")
        }
    }

    @Test func aRequestTricklingPastItsDeadlineIsCutOff() throws {
        let server = try TestServer { $0.requestDeadlineSeconds = 1 }
        let socket = try server.client.openSocket()
        defer { close(socket) }
        // One byte every 100 ms never trips the idle timeout (30 s), only the total deadline.
        let line = Array("GET /healthz HTTP/1.1\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 200)
        var cutOff = false
        for byte in line {
            var value = byte
            if send(socket, &value, 1, Int32(MSG_NOSIGNAL)) < 0 { cutOff = true; break }
            var probe = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            if poll(&probe, 1, 100) > 0 {
                var scratch = [UInt8](repeating: 0, count: 512)
                if recv(socket, &scratch, scratch.count, 0) <= 0 { cutOff = true; break }
            }
        }
        #expect(cutOff, "the server should close a request that has not arrived in full after 1 s")
        // Everyone else is still served, and the operator can see it happened.
        #expect(try server.client.get("/healthz").status == 200)
        #expect(try server.client.get("/metrics").text.contains("leakhistory_http_deadline_cutoffs_total 1\n"))
    }

    @Test func oneClientCannotTakeEveryConnection() throws {
        let server = try TestServer { $0.perClientConnectionLimit = 4 }
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        // Answered, not only connected: else the fifth may be accepted before the fourth.
        for _ in 0..<4 { held.append(try server.client.openAnsweredSocket(source: "127.0.0.9")) }
        // The fifth is told to come back, not cut off.
        let refused = try server.client.exchange(Self.head("GET", "/healthz", ["Connection: close"]), source: "127.0.0.9", seconds: 5)
        #expect(refused.replies.map(\.status) == [503])
        #expect(refused.replies.first?.headers["retry-after"].flatMap(Int.init).map { $0 >= 1 } == true)
        // Another address is served at once.
        let other = try server.client.exchange(Self.head("GET", "/healthz", ["Connection: close"]), source: "127.0.0.10")
        #expect(other.replies.map(\.status) == [200])
    }
}

/// A browser reads the dashboard of a server that requires read tokens through the sign-in
/// form and a session cookie, which never writes.
@Suite("Dashboard sign-in")
struct DashboardSignInTests {
    static func cookie(_ reply: HTTPClient.Reply) -> String? {
        guard let header = reply.headers["set-cookie"], let pair = header.split(separator: ";").first else { return nil }
        return String(pair)
    }

    @Test func aTokenBuysAReadOnlySessionCookie() throws {
        let server = try TestServer { $0.requireReadToken = true }
        let form = try server.client.get("/login?next=%2Fp%2Fapp")
        #expect(form.status == 200)
        #expect(form.text.contains("name=\"token\""))
        let signIn = try server.client.post("/login", body: Data("token=\(server.token)&next=%2Fp%2Fapp".utf8),
                                            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(signIn.status == 303)
        #expect(signIn.headers["location"] == "/p/app")
        let setCookie = try #require(signIn.headers["set-cookie"])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
        let cookie = try #require(Self.cookie(signIn))
        #expect(!cookie.contains(server.token))

        #expect(try server.client.get("/p/app", headers: ["Cookie": cookie]).status == 200)
        // Only pages take the cookie: not the JSON API, and never a write.
        #expect(try server.client.get("/v1/projects/app/types", headers: ["Cookie": cookie]).status == 401)
        #expect(try server.upload(RunFixture.body(), headers: ["Cookie": cookie]).status == 401)
        #expect(try server.nothingStored())
    }

    /// `/` lists nothing on such a server: it is the form, and signing in there opens the
    /// token's project. A session of another project gets the form for this one, saying why.
    @Test func signingInFromTheRootOpensTheTokensProjectAndAnotherProjectAsksAgain() throws {
        let server = try TestServer { $0.requireReadToken = true }
        let root = try server.client.get("/")
        #expect(root.status == 403)
        #expect(root.text.contains("does not list its projects") && root.text.contains("action=\"/login\""))
        let signIn = try server.client.post("/login", body: Data("token=\(server.token)&next=%2F".utf8))
        #expect(signIn.status == 303)
        #expect(signIn.headers["location"] == "/p/app")
        let cookie = try #require(Self.cookie(signIn))
        _ = try server.store.createProject("other")
        let other = try server.client.get("/p/other", headers: ["Cookie": cookie])
        #expect(other.status == 403)
        #expect(other.text.contains("belongs to project &quot;app&quot;, not &quot;other&quot;"), "\(other.text)")
        #expect(other.text.contains("name=\"next\" value=\"/p/other\""))
    }

    @Test func aWrongTokenIsRefusedOnTheForm() throws {
        let server = try TestServer { $0.requireReadToken = true }
        let reply = try server.client.post("/login", body: Data("token=lh_1_nope&next=%2F%2Fevil.example".utf8))
        #expect(reply.status == 401)
        #expect(reply.headers["set-cookie"] == nil)
        #expect(!reply.text.contains("//evil.example"))
    }

    @Test func revokingTheTokenEndsItsSessions() throws {
        let server = try TestServer { $0.requireReadToken = true }
        let read = try server.store.createToken(project: "app", scope: .read)
        let signIn = try server.client.post("/login", body: Data("token=\(read.secret)".utf8))
        let cookie = try #require(Self.cookie(signIn))
        #expect(try server.client.get("/p/app", headers: ["Cookie": cookie]).status == 200)
        try server.store.revokeToken(id: read.id)
        #expect(try server.client.get("/p/app", headers: ["Cookie": cookie]).status == 401)
    }

    @Test func healthAndMetricsFollowTheirSettings() throws {
        let closed = try TestServer { $0.requireReadToken = true }
        #expect(try closed.client.get("/healthz").status == 200)
        #expect(try closed.client.get("/metrics").status == 401)
        #expect(try closed.client.get("/metrics", headers: ["Authorization": "Bearer \(closed.token)"]).status == 200)
        let strict = try TestServer {
            $0.requireReadToken = true
            $0.healthzWithoutToken = false
            $0.metricsWithoutToken = true
        }
        #expect(try strict.client.get("/healthz").status == 401)
        #expect(try strict.client.get("/metrics").status == 200)
    }
}
