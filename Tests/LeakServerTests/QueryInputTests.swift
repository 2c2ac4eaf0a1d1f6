import Foundation
import Testing

@Suite("Bad input to the query routes")
struct QueryInputTests {
    let sha = HistoryFixture.sha

    @Test(arguments: [
        ("/v1/projects/app/diff?base=xyz&head=\(HistoryFixture.sha(1))", "base"),
        ("/v1/projects/app/diff?base=\(HistoryFixture.sha(1))&head=\(HistoryFixture.sha(1))0", "head"),
        ("/v1/projects/app/diff?base=\(HistoryFixture.sha(1))", "head"),        // base is optional: head is not
        ("/v1/projects/app/diff?head=\(HistoryFixture.sha(1))&mergeBase=x", "mergeBase"),
        ("/v1/projects/app/types", "branch"),
        ("/v1/projects/app/scenarios/history", "scenario"),
        ("/v1/projects/app/types/App.A/trend?branch=main&limit=0", "limit"),
        ("/v1/projects/app/types/App.A/trend?branch=main&limit=ten", "limit"),
        ("/v1/projects/app/diff?base=\(HistoryFixture.sha(1))&head=\(HistoryFixture.sha(1))&environment=", "environment"),
    ])
    func aBadQueryIsA400NamingTheParameter(_ path: String, _ named: String) throws {
        let server = try TestServer()
        let reply = try server.client.get(path)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.error?.message.hasPrefix(named) == true, "\(reply.text)")
    }

    @Test func resolveRefusesTooManyCandidatesAndNamesABadOne() throws {
        let server = try TestServer()
        let tooMany = try server.resolve((0..<1_001).map(sha))
        #expect(tooMany.status == 400)
        #expect(tooMany.error?.message.hasPrefix("candidates:") == true, "\(tooMany.text)")
        let bad = try server.resolve([sha(1), sha(2), sha(3), "not-a-sha"])
        #expect(bad.status == 400)
        #expect(bad.error?.message.hasPrefix("candidates[3]:") == true, "\(bad.text)")
        let missing = try server.client.post("/v1/projects/app/resolve", body: Data(#"{"candidates":[]}"#.utf8))
        #expect(missing.status == 400)
        #expect(missing.error?.message.contains("environment") == true, "\(missing.text)")
    }

    @Test(arguments: [
        "/v1/projects/nope/diff?base=\(HistoryFixture.sha(1))&head=\(HistoryFixture.sha(2))",
        "/v1/projects/nope/types?branch=main",
        "/v1/projects/nope/types/App.A/trend?branch=main",
        "/v1/projects/nope/scenarios/history?scenario=a",
        "/v1/projects/nope/suppressions",
    ])
    func anUnknownProjectIsA404(_ path: String) throws {
        let server = try TestServer()
        let reply = try server.client.get(path)
        #expect(reply.status == 404, "\(reply.text)")
        #expect(reply.error?.code == "project_not_found")
    }

    @Test func readsNeedATokenWhenTheServerSaysSo() throws {
        let server = try TestServer { $0.requireReadToken = true }
        let path = "/v1/projects/app/diff?base=\(sha(1))&head=\(sha(2))"
        #expect(try server.client.get(path).status == 401)
        #expect(try server.client.get(path, headers: server.writeHeaders).status == 200)
        #expect(try server.client.post("/v1/projects/app/resolve",
                                       body: Data(#"{"environment":"linux","candidates":[]}"#.utf8)).status == 401)
    }
}

extension QueryInputTests {
    /// 1,025 code points in fewer graphemes: JSON Schema's maxLength counts code points.
    @Test func lengthsCountCodePoints() throws {
        let server = try TestServer()
        let branch = "C" + String(repeating: "\u{1F3FB}", count: 1_024)
        let encoded = branch.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let reply = try server.client.get("/v1/projects/app/types?branch=\(encoded)")
        #expect(reply.status == 400, "\(reply.status)")
        #expect(reply.error?.message.hasPrefix("branch") == true)
    }
}
