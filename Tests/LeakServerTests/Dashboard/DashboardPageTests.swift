import Foundation
import Testing

/// The pages over plain HTTP: status, content type, the 404 pages, and hostile names escaped
/// in the bytes the server sends (the browser tests check the DOM a browser builds from them).
@Suite("Dashboard: pages over HTTP")
struct DashboardPageTests {
    typealias Fixture = DashboardFixture

    /// Every page of the seeded project, by name.
    static func pages() -> [(name: String, path: String)] {
        let sha = Fixture.sha
        let links = ["App.Cache", Fixture.script, Fixture.image].map {
            (name: "type \($0)", path: LeakServerTestsLinks.type($0))
        }
        return [
            ("projects", "/"), ("project", "/p/app"), ("project on main in linux", "/p/app?branch=main&environment=linux"),
            ("commit", "/p/app/commits/\(sha(6))"), ("diff", "/p/app/diff?base=\(sha(1))&head=\(sha(6))&environment=linux"),
            ("diff form", "/p/app/diff"),
        ] + links
    }

    /// Markup the dashboard never writes itself: finding any of it means a value went out unescaped.
    static let injected = ["<script", "<img", "<b ", "<i>", "<u>", "onerror=alert(1)>"]

    @Test func everyPageIsHTMLAndNoHostileNameGoesOutUnescaped() throws {
        let server = try TestServer()
        try Fixture.seed(server)
        for page in Self.pages() {
            let reply = try server.client.get(page.path)
            #expect(reply.status == 200, "\(page.name): \(reply.text.prefix(300))")
            #expect(reply.headers["content-type"] == "text/html; charset=utf-8", "\(page.name)")
            for markup in Self.injected {
                #expect(!reply.text.contains(markup), "\(page.name) holds \(markup) unescaped")
            }
        }
        let project = try server.client.get("/p/app").text
        #expect(project.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(project.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"))
        let hostile = try server.client.get(LeakServerTestsLinks.type(Fixture.script)).text
        #expect(hostile.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.&lt;u&gt;owner&lt;/u&gt;"))
        let diff = try server.client.get("/p/app/diff?base=\(Fixture.sha(1))&head=\(Fixture.sha(6))&environment=linux").text
        #expect(diff.contains("&lt;/td&gt;&lt;script&gt;alert(2)&lt;/script&gt;"))
    }

    @Test func anUnknownProjectOrCommitIsA404PageThatSaysWhatAndLinksBack() throws {
        let server = try TestServer()
        try Fixture.seed(server)
        let project = try server.client.get("/p/nope")
        #expect(project.status == 404)
        #expect(project.headers["content-type"] == "text/html; charset=utf-8")
        #expect(project.text.contains("nope"))
        #expect(project.text.contains("<a href=\"/\">Back to the projects</a>"))

        let commit = try server.client.get("/p/app/commits/\(Fixture.sha(99))")
        #expect(commit.status == 404)
        #expect(commit.text.contains(Fixture.sha(99)))
        #expect(commit.text.contains("<a href=\"/p/app\">Back to app</a>"))

        let hostile = try server.client.get("/p/%3Cscript%3E")
        #expect(hostile.status == 404)
        #expect(!hostile.text.contains("<script>"))

        let badSHA = try server.client.get("/p/app/commits/xyz")
        #expect(badSHA.status == 400)
        #expect(badSHA.text.contains("sha: expected a 40-digit hex commit id"))
    }

    /// Given only a branch (or only an environment), a page takes the other from the newest run
    /// that matches it: `?branch=main` shows main where it has data, not the environment of the
    /// newest upload elsewhere.
    @Test func theArgumentLeftOutComesFromTheNewestRunMatchingTheOneGiven() throws {
        let server = try TestServer()
        try Fixture.seed(server)
        try Fixture.seedFeature(server)   // newest: the feature branch in a long environment only it has
        let main = try server.client.get("/p/app?branch=main").text
        #expect(main.contains("Head of <code>main</code> in <code>linux</code>"), "\(main.prefix(3000))")
        let linux = try server.client.get("/p/app?environment=linux").text
        #expect(linux.contains("Head of <code>\(Fixture.featureBranch)</code> in <code>linux</code>"))
        let bare = try server.client.get("/p/app").text
        #expect(bare.contains("Head of <code>\(Fixture.featureBranch)</code> in <code>\(Fixture.longEnvironment)</code>"))
        let type = try server.client.get("/p/app/types/App.Cache?branch=main").text
        #expect(type.contains("/p/app/types/App.Cache?branch=main&amp;environment=linux"), "\(type.prefix(3000))")
        // The diff page, by the head it compares: a branch name or a commit id.
        for head in ["main", Fixture.sha(6)] {
            let diff = try server.client.get("/p/app/diff?base=\(Fixture.sha(1))&head=\(head)").text
            #expect(diff.contains("&amp;head=\(Fixture.sha(6))&amp;environment=linux\""), "\(head): \(diff.prefix(3000))")
        }
    }

    /// The diff page's head is the branch's newest commit; left to choose, the environment is one
    /// that commit has runs in, also when the branch's newest run is elsewhere (its tip was reset
    /// to an older commit, which ran again in another environment).
    @Test func theDiffPageTakesAnEnvironmentTheHeadHasRunsIn() throws {
        let server = try TestServer()
        try Fixture.seed(server)
        let clean = [HistoryFixture.Check.clean("A/a()", "App.A")]
        try server.uploadRun(commit: Fixture.sha(20), branch: "reset", parents: [Fixture.sha(1)], environment: "mac", checks: clean)
        try server.uploadRun(commit: Fixture.sha(21), branch: "reset", parents: [Fixture.sha(20)], environment: "mac", checks: clean)
        try server.uploadRun(commit: Fixture.sha(20), branch: "reset", parents: [Fixture.sha(1)], environment: "linux", checks: clean)
        let diff = try server.client.get("/p/app/diff?base=\(Fixture.sha(1))&head=reset").text
        #expect(diff.contains("&amp;head=\(Fixture.sha(21))&amp;environment=mac\""), "\(diff.prefix(3000))")
        #expect(!diff.contains("The head has no usable runs in this environment"))
    }

    @Test func pagesNeedAReadTokenWhenTheServerSaysSo() throws {
        let server = try TestServer { $0.requireReadToken = true }
        // A browser without a token is sent to the sign-in form, which brings it back.
        let anonymous = try server.client.get("/p/app")
        #expect(anonymous.status == 303)
        #expect(anonymous.headers["location"] == "/login?next=%2Fp%2Fapp")
        #expect(try server.client.get("/").status == 403)
        #expect(try server.client.get("/p/app", headers: server.writeHeaders).status == 200)
    }
}

/// Dashboard URLs as a test writes them, independent of `DashboardLinks`.
enum LeakServerTestsLinks {
    static func type(_ name: String) -> String {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return name.contains("/") ? "/p/app/types/-?type=\(encoded)" : "/p/app/types/\(encoded)"
    }
}
