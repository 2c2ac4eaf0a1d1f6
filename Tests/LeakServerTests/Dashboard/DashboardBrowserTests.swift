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
        // evict() and reload() share the fingerprint fp-cache: one root cause, one row.
        #expect(rows(in: dom, table: "type-leaks") == 1)
        #expect(dom.contains("2 scenarios"))
        #expect(dom.contains("Coordinator.children[0] → Store.cache → Cache"))
        #expect(dom.contains("fp-cache"))
        // The row names the commits that introduced its scenarios: evict() at 2, reload() at 5.
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

    @Test func theCommitAndDiffPagesShowOneRowPerRootCause() throws {
        guard let (server, chromium) = try setUp() else { return }
        let commit = try chromium.dumpDOM(url(server, "/p/app/commits/\(sha(6))"))
        #expect(rows(in: commit, table: "runs") == 1)
        // Four leaked keys, the two App.Cache scenarios share fp-cache: three root causes.
        #expect(rows(in: commit, table: "leaks-linux") == 3)
        #expect(commit.contains("Leaks in <code>linux</code> (4 in 3 root causes)"))
        #expect(commit.contains("<span class=\"chain\">Coordinator.children[0] → Store.cache → Cache</span>"))
        #expect(commit.contains("href=\"/p/app/diff?base=\(sha(5))&amp;head=\(sha(6))&amp;environment=linux\""))
        #expect(commit.contains("<tr data-scenario=\"CacheTests/evict()\">"), "the scenario history")

        let diff = try chromium.dumpDOM(url(server, "/p/app/diff?base=\(sha(1))&head=\(sha(6))&environment=linux"))
        #expect(rows(in: diff, table: "diff-new") == 3)
        #expect(rows(in: diff, table: "diff-fixed") == 1)
        #expect(!diff.contains("id=\"diff-persisting\""))
        #expect(diff.contains("<h2 id=\"new\">New leaks (4 in 3 root causes)</h2>"))
        #expect(diff.contains("<li data-category=\"new\"><strong>4</strong> new</li>"))
        #expect(diff.contains("<li data-category=\"fixed\"><strong>1</strong> fixed</li>"))
        #expect(diff.contains("<li data-category=\"persisting\"><strong>0</strong> persisting</li>"))
        #expect(!diff.contains("<li data-category=\"flaky\">"), "an empty category other than those three is left out")
        #expect(diff.contains("data-category=\"fixed\" data-fingerprint=\"fp-fixed\" data-type=\"App.Fixed\""))
        // The cache group: both scenarios folded, the first one's place, the path once.
        let cache = try #require(row(in: diff, containing: "data-fingerprint=\"fp-cache\""))
        #expect(cache.contains("<summary>2 scenarios</summary>"))
        #expect(cache.contains("<code class=\"where\" title=\"CacheTests.swift:42\">CacheTests.swift:42</code>"))
        #expect(count("Store.cache", in: cache) == 1)
        // Each new group says why the gate called it new.
        #expect(cache.contains("<p class=\"evidence\" data-evidence=\"\">Why new: leaked at head"), "\(cache)")
        #expect(count("class=\"evidence\"", in: diff) == 3, "one sentence a new group, none on the fixed one")
        // Sections in the CLI's order: new, then fixed.
        let new = try #require(diff.range(of: "id=\"diff-new\""))
        let fixed = try #require(diff.range(of: "id=\"diff-fixed\""))
        #expect(new.lowerBound < fixed.lowerBound)
    }

    @Test func theDiffPageTakesBranchNamesAndShortIdsAndSaysWhatItCompared() throws {
        guard let (server, chromium) = try setUp() else { return }
        try Fixture.seedFeature(server)
        let branch = Fixture.featureBranch.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let dom = try chromium.dumpDOM(url(server, "/p/app/diff?base=main&head=\(branch)&environment=linux"))
        // main's newest upload is commit 6; the feature branched off commit 5: the merge-base.
        #expect(dom.contains("Base asked for: <code>main</code> (its newest upload, <a class=\"sha\" href=\"/p/app/commits/\(sha(6))\""))
        #expect(dom.contains("Merge-base along the uploaded parents: <a class=\"sha\" href=\"/p/app/commits/\(sha(5))\""))
        #expect(dom.contains("(the merge-base itself)"))
        #expect(dom.contains("Head: <code>\(Fixture.featureBranch)</code> (its newest upload"))
        #expect(rows(in: dom, table: "diff-new") == 1)
        #expect(dom.contains("<summary>3 scenarios</summary>"))
        #expect(rows(in: dom, table: "diff-persisting") == 1)
        #expect(dom.contains("href=\"/p/app/diff?base=\(sha(5))&amp;head=\(Fixture.feature)&amp;environment=linux\""))

        let short = try chromium.dumpDOM(url(server, "/p/app/diff?base=main&head=\(Fixture.feature.prefix(7))&environment=linux"))
        #expect(short.contains("Head: <code>\(Fixture.feature.prefix(7))</code> (<a class=\"sha\""))
        #expect(rows(in: short, table: "diff-new") == 1)

        let ambiguous = try server.client.get("/p/app/diff?base=0000000&head=main&environment=linux")
        #expect(ambiguous.status == 400)
        #expect(ambiguous.text.contains("base: &quot;0000000&quot; is the start of several uploaded commits"))
        let tag = try server.client.get("/p/app/diff?base=v1.2.0&head=main&environment=linux")
        #expect(tag.status == 404)
        #expect(tag.text.contains("no branch named &quot;v1.2.0&quot;"))
    }

    @Test func theProjectPageListsSuppressionsWithTheirExpiry() throws {
        guard let (server, chromium) = try setUp() else { return }
        try Fixture.seedFeature(server)
        let dom = try chromium.dumpDOM(url(server, "/p/app"))
        #expect(rows(in: dom, table: "suppressions") == 2)
        let active = try #require(row(in: dom, containing: "data-suppression=\"1\""))
        #expect(active.contains("data-active=\"true\""))
        #expect(active.contains("type App.Legacy*"))
        #expect(active.contains("2099-01-01T00:00:00.000Z"))
        #expect(active.contains("ana@example.com"))
        let expired = try #require(row(in: dom, containing: "data-suppression=\"2\""))
        #expect(expired.contains("data-active=\"false\""))
        #expect(expired.contains("<span class=\"warn\">expired</span>"))
        #expect(expired.contains("unknown"), "no author was given")
    }

    /// Every page at a laptop's and a phone's width: nothing sticks out sideways (the
    /// document's scrollWidth within its clientWidth, and no element scrolling sideways).
    @Test func noPageScrollsSidewaysAt1280Or390Pixels() throws {
        guard let (server, chromium) = try setUp() else { return }
        try Fixture.seedFeature(server)
        var pages: [(name: String, html: String)] = []
        for (name, path) in Self.pages {
            let reply = try server.client.get(path)
            #expect(reply.status == 200 || name == "not-found", "\(name): \(reply.status)")
            pages.append((name, reply.text))
        }
        let layouts = try chromium.layouts(of: pages, widths: [1280, 390])
        for (name, _) in Self.pages {
            for width in [1280, 390] {
                let layout = try #require(layouts["\(name)@\(width)"], "\(name) at \(width) px was not measured")
                #expect(layout.viewport == width, "\(name)")
                #expect(!layout.overflows, """
                    \(name) at \(width) px: scrollWidth \(layout.scrollWidth) > clientWidth \(layout.clientWidth); \
                    sticking out: \(layout.outside); scrolling: \(layout.scrolling)
                    """)
            }
        }
    }

    /// The pages the layout test and the screenshots cover, with the feature branch seeded.
    static let pages: [(String, String)] = [
        ("projects", "/"), ("project", "/p/app"), ("type", "/p/app/types/App.Cache?branch=main&environment=linux"),
        ("type-long", LeakServerTestsLinks.type(DashboardFixture.coordinator) + "?branch=\(DashboardFixture.featureBranch.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&environment=linux"),
        ("commit", "/p/app/commits/\(DashboardFixture.sha(6))"), ("commit-feature", "/p/app/commits/\(DashboardFixture.feature)"),
        ("diff", "/p/app/diff?base=\(DashboardFixture.sha(1))&head=\(DashboardFixture.sha(6))&environment=linux"),
        ("diff-branches", "/p/app/diff?base=main&head=\(DashboardFixture.featureBranch.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&environment=linux"),
        ("diff-form", "/p/app/diff"), ("not-found", "/p/nope"),
    ]

    @Test func unknownProjectsAndCommitsArePagesThatLinkBack() throws {
        guard let (server, chromium) = try setUp() else { return }
        let project = try chromium.dumpDOM(url(server, "/p/nope"))
        #expect(project.contains("<h1>Not found</h1>"))
        #expect(project.contains("nope"))
        let commit = try chromium.dumpDOM(url(server, "/p/app/commits/\(sha(99))"))
        #expect(commit.contains(sha(99)))
        #expect(commit.contains("<a href=\"/p/app\">Back to app</a>"))
    }

    /// `.build/dashboard-screenshots/<page>-<width>.png` for people to look at: the pages
    /// with the most in them, at a laptop's and a phone's width.
    @Test func screenshotsAt1280And390Pixels() throws {
        guard let (server, chromium) = try setUp() else { return }
        try Fixture.seedFeature(server)
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(".build/dashboard-screenshots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let shown: Set = ["project", "type-long", "commit-feature", "diff-branches", "projects", "not-found"]
        for (name, path) in Self.pages where shown.contains(name) {
            for (width, height) in [(1280, 1000), (390, 1600)] {
                let file = folder.appendingPathComponent("\(name)-\(width).png")
                try chromium.screenshot(url(server, path), to: file, width: width, height: height)
                let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
                #expect(size > 1_000, "\(file.lastPathComponent) is \(size) bytes")
            }
        }
    }

    /// The `<tr …>` of the first row holding `marker`.
    private func row(in dom: String, containing marker: String) -> String? {
        guard let hit = dom.range(of: marker),
              let start = dom.range(of: "<tr", options: .backwards, range: dom.startIndex..<hit.lowerBound),
              let end = dom.range(of: "</tr>", range: hit.upperBound..<dom.endIndex)
        else { return nil }
        return String(dom[start.lowerBound..<end.upperBound])
    }

    /// Rows in the body of the table with `id`.
    private func rows(in dom: String, table id: String) -> Int {
        guard let start = dom.range(of: "<table class=\"cards\" id=\"\(id)\">"),
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
