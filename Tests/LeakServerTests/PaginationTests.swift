import Foundation
import LeakReport
import LeakStore
import Testing

/// The lists and histories that can grow without bound come a page at a time: `limit` bounds a
/// page, `next` is the cursor of the following one, and walking the pages gives exactly the
/// unpaged answer, each item once.
@Suite("Pagination")
struct PaginationTests {
    typealias Check = HistoryFixture.Check
    let sha = HistoryFixture.sha

    @Test func typesComeInPagesSortedByName() throws {
        let server = try TestServer()
        let names = (0..<7).map { "App.Type\($0)" }
        try server.uploadRun(commit: sha(1), checks: names.map { Check.leaked("S/\($0)()", $0) } + HistoryFixture.padding)
        let whole = try server.get("/v1/projects/app/types?branch=main&environment=linux", as: TypesResponse.self)
        #expect(whole.types.map(\.type) == names)
        #expect(whole.next == nil)

        var seen: [TypesResponse.Summary] = [], cursor: String?, pages = 0
        repeat {
            let query = cursor.map { "&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? ""
            let page = try server.get("/v1/projects/app/types?branch=main&environment=linux&limit=3\(query)", as: TypesResponse.self)
            #expect(page.types.count <= 3)
            #expect(page.head == sha(1))
            seen += page.types
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == whole.types)
    }

    @Test func aScenarioHistoryPagesBackToOlderCommits() throws {
        let server = try TestServer()
        for index in 1...5 {
            try server.uploadRun(commit: sha(index), parents: index == 1 ? [] : [sha(index - 1)],
                                 checks: [index % 2 == 0 ? .leaked("A/a()", "App.A") : .clean("A/a()", "App.A")])
        }
        let path = "/v1/projects/app/scenarios/history?scenario=\("A/a()".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&environment=linux"
        let newest = try server.get(path + "&limit=2", as: ScenarioHistoryResponse.self)
        #expect(newest.commits.map(\.commit) == [sha(4), sha(5)])
        #expect(newest.next == sha(4))
        let older = try server.get(path + "&limit=2&cursor=\(try #require(newest.next))", as: ScenarioHistoryResponse.self)
        #expect(older.commits.map(\.commit) == [sha(2), sha(3)])
        #expect(older.commits.first?.keys.first?.state == .leaked)
        let oldest = try server.get(path + "&limit=2&cursor=\(try #require(older.next))", as: ScenarioHistoryResponse.self)
        #expect(oldest.commits.map(\.commit) == [sha(1)])
        #expect(oldest.next == nil)
        let whole = try server.get(path, as: ScenarioHistoryResponse.self)
        #expect(whole.commits == oldest.commits + older.commits + newest.commits)
        #expect(whole.next == nil)
    }

    @Test func suppressionsComeInPagesOldestFirst() throws {
        let server = try TestServer()
        for index in 0..<5 {
            let reply = try server.client.post("/v1/projects/app/suppressions",
                                               body: RunFixture.data(["type": "App.T\(index)", "reason": "r\(index)"]),
                                               headers: server.writeHeaders)
            #expect(reply.status == 201)
        }
        var types: [String] = [], cursor: String?, pages = 0
        repeat {
            let page = try server.get("/v1/projects/app/suppressions?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""),
                                      as: SuppressionList.self)
            #expect(page.suppressions.count <= 2)
            types += page.suppressions.compactMap(\.type)
            cursor = page.next
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(types == (0..<5).map { "App.T\($0)" })
        #expect(try server.get("/v1/projects/app/suppressions", as: SuppressionList.self).suppressions.count == 5)
    }

    @Test(arguments: [
        "/v1/projects/app/suppressions?cursor=abc", "/v1/projects/app/suppressions?cursor=0",
        "/v1/projects/app/suppressions?limit=0", "/v1/projects/app/suppressions?limit=1001",
        "/v1/projects/app/types?branch=main&limit=5000",
        "/v1/projects/app/scenarios/history?scenario=A&cursor=nothex",
    ])
    func aBadLimitOrCursorIsRefusedByName(_ path: String) throws {
        let server = try TestServer()
        let reply = try server.client.get(path)
        #expect(reply.status == 400, "\(reply.text)")
        let field = path.contains("cursor=") && !path.contains("limit=") ? "cursor" : "limit"
        #expect(reply.text.contains("\(field):"), "\(reply.text)")
    }
}
