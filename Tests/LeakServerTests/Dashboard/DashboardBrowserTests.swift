import Foundation
import Testing

/// Each page loaded in headless Chromium from a real server seeded through the upload API: the
/// DOM holds the expected rows and chart points, no hostile name became an element, and a
/// screenshot of each page lands in `.build/dashboard-screenshots/` for people to look at.
/// Serialized: each load starts a browser, and the machines that run this have two cores.
@Suite("Dashboard: pages in a real browser", .serialized)
struct DashboardBrowserTests {
    typealias Fixture = DashboardFixture
    let sha = DashboardFixture.sha

    /// The seeded server and the browser, or nil after recording why there is no browser.
    private func setUp(sourceLocation: SourceLocation = #_sourceLocation) throws -> (TestServer, HeadlessChromium)? {
        guard let chromium = HeadlessChromium.find() else {
            Issue.record(Comment(rawValue: HeadlessChromium.missing), sourceLocation: sourceLocation)
            return nil
        }
        let server = try TestServer()
        try Fixture.seed(server)
        return (server, chromium)
    }

    private func url(_ server: TestServer, _ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    @Test func theProjectPageListsTypesWithSparklinesRunsAndLeaks() throws {
        guard let (server, chromium) = try setUp() else { return }
        let dom = try chromium.dumpDOM(url(server, "/p/app"))
        #expect(dom.contains("<h1>app</h1>"))
        #expect(rows(in: dom, table: "types") == 3)
        #expect(dom.contains("data-type=\"App.Cache\""))
        #expect(count("<svg class=\"spark\"", in: dom) == 3)
        #expect(rows(in: dom, table: "runs") == Fixture.commits)
        #expect(rows(in: dom, table: "leaks") == 11)
        #expect(dom.contains("<option value=\"main\" selected=\"\">main</option>"))
        #expect(dom.contains("<option value=\"linux\" selected=\"\">linux</option>"))
        expectNoInjectedElements(dom)
    }

    @Test func theTypePageChartsOnePointPerCheckedCommitLinkedToIt() throws {
        guard let (server, chromium) = try setUp() else { return }
        let dom = try chromium.dumpDOM(url(server, "/p/app/types/App.Cache?branch=main&environment=linux"))
        // Commits 1 and 4 did not check App.Cache: gaps, not zeros.
        let charted = [2, 3, 5, 6].map(sha)
        #expect(count("<circle", in: dom) == charted.count)
        for commit in charted { #expect(dom.contains("data-commit=\"\(commit)\""), "\(commit)") }
        #expect(dom.contains("<a href=\"/p/app/commits/\(sha(6))\"><circle class=\"point leaking\""))
        #expect(count("<polyline", in: dom) == 2)
        #expect(rows(in: dom, table: "type-leaks") == 2)
        #expect(dom.contains("Coordinator.children[0] → Store.cache → Cache"))
        #expect(dom.contains("fp-cache"))
        // Each leak names the commit that introduced it: evict() at 2, reload() at 5.
        #expect(dom.contains("title=\"\(sha(2))\""))
        #expect(dom.contains("title=\"\(sha(5))\""))
    }

    @Test func hostileTypeNamesShowAsTextOnEveryPage() throws {
        guard let (server, chromium) = try setUp() else { return }
        for page in DashboardPageTests.pages() {
            let dom = try chromium.dumpDOM(url(server, page.path))
            #expect(dom.contains("</html>"), "\(page.name) did not load")
            expectNoInjectedElements(dom, page: page.name)
        }
        let type = try chromium.dumpDOM(url(server, LeakServerTestsLinks.type(Fixture.script)))
        #expect(type.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"))
        #expect(count("<circle", in: type) == 1)
    }

    @Test func theCommitAndDiffPagesShowRunsLeaksAndCategories() throws {
        guard let (server, chromium) = try setUp() else { return }
        let commit = try chromium.dumpDOM(url(server, "/p/app/commits/\(sha(6))"))
        #expect(rows(in: commit, table: "runs") == 1)
        #expect(rows(in: commit, table: "leaks") == 4)
        #expect(commit.contains("href=\"/p/app/diff?base=\(sha(5))&amp;head=\(sha(6))&amp;environment=linux\""))

        let diff = try chromium.dumpDOM(url(server, "/p/app/diff?base=\(sha(1))&head=\(sha(6))&environment=linux"))
        #expect(rows(in: diff, table: "diff-new") == 4)
        #expect(rows(in: diff, table: "diff-fixed") == 1)
        #expect(!diff.contains("id=\"diff-persisting\""))
        #expect(diff.contains("<li data-category=\"new\">New: <strong>4</strong></li>"))
        #expect(diff.contains("<li data-category=\"fixed\">Fixed: <strong>1</strong></li>"))
        #expect(diff.contains("data-category=\"fixed\" data-type=\"App.Fixed\""))
    }

    @Test func unknownProjectsAndCommitsArePagesThatLinkBack() throws {
        guard let (server, chromium) = try setUp() else { return }
        let project = try chromium.dumpDOM(url(server, "/p/nope"))
        #expect(project.contains("<h1>Not found</h1>"))
        #expect(project.contains("nope"))
        let commit = try chromium.dumpDOM(url(server, "/p/app/commits/\(sha(99))"))
        #expect(commit.contains(sha(99)))
        #expect(commit.contains("<a href=\"/p/app\">Back to app</a>"))
    }

    @Test func screenshotsOfEveryPage() throws {
        guard let (server, chromium) = try setUp() else { return }
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/dashboard-screenshots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pages: [(String, String)] = [
            ("projects", "/"), ("project", "/p/app"), ("type", "/p/app/types/App.Cache"),
            ("commit", "/p/app/commits/\(sha(6))"), ("diff", "/p/app/diff?base=\(sha(1))&head=\(sha(6))&environment=linux"),
            ("not-found", "/p/nope"),
        ]
        for (name, path) in pages {
            let file = folder.appendingPathComponent("\(name).png")
            try chromium.screenshot(url(server, path), to: file)
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
            #expect(size > 1_000, "\(name).png is \(size) bytes")
        }
    }

    /// Rows in the body of the table with `id`.
    private func rows(in dom: String, table id: String) -> Int {
        guard let start = dom.range(of: "<table id=\"\(id)\">"),
              let end = dom.range(of: "</table>", range: start.upperBound..<dom.endIndex)
        else { return 0 }
        let body = dom[start.upperBound..<end.lowerBound]
        return count("<tr", in: String(body)) - 1
    }

    private func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// Chromium serializes text `<` as `&lt;` (and, since version 138, in attributes too): an
    /// element built from a hostile name would show up as a real tag.
    private func expectNoInjectedElements(_ dom: String, page: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        for markup in DashboardPageTests.injected {
            #expect(!dom.contains(markup), "\(page): the DOM holds \(markup)", sourceLocation: sourceLocation)
        }
    }
}
