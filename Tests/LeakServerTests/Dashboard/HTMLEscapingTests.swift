@testable import LeakServer
import Testing

@Suite("Dashboard: HTML escaping")
struct HTMLEscapingTests {
    @Test func everyCharacterThatEndsTextOrAnAttributeIsEscaped() {
        #expect(HTMLEscaping.escape(#"<script>alert("x")</script>"#) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
        #expect(HTMLEscaping.escape(#"'"><img src=x onerror=alert(1)>"#) == "&#39;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;")
        #expect(HTMLEscaping.escape("a & b") == "a &amp; b")
        #expect(HTMLEscaping.escape("&amp;") == "&amp;amp;")
    }

    @Test func otherTextIsKeptAsItIs() {
        #expect(HTMLEscaping.escape("App.Cache<Int>.Entry → ünïcode 🐛") == "App.Cache&lt;Int&gt;.Entry → ünïcode 🐛")
        #expect(HTMLEscaping.escape("") == "")
    }

    @Test func interpolatedStringsAreEscapedAndFragmentsAreNot() {
        let name = #""><b>"#
        let cell: HTML = "<td title=\"\(name)\">\(name)</td>"
        #expect(cell.rendered == "<td title=\"&quot;&gt;&lt;b&gt;\">&quot;&gt;&lt;b&gt;</td>")
        let optional: String? = "<i>"
        let nested: HTML = "<tr>\(cell)\(optional)\(3)</tr>"
        #expect(nested.rendered == "<tr>\(cell.rendered)&lt;i&gt;3</tr>")
        let missing: String? = nil
        #expect(("<p>\(missing)</p>" as HTML).rendered == "<p></p>")
    }

    @Test func linksPercentEncodeEverythingButUnreservedCharacters() {
        let links = DashboardLinks(project: "my app")
        #expect(links.project(branch: "feature/x", environment: "linux") == "/p/my%20app?branch=feature%2Fx&environment=linux")
        #expect(links.type("App.Box<Int>", branch: nil, environment: nil) == "/p/my%20app/types/App.Box%3CInt%3E")
        // A `/` cannot travel in a path segment: the name goes in the query instead.
        #expect(links.type("</script>", branch: "main", environment: nil) == "/p/my%20app/types/-?type=%3C%2Fscript%3E&branch=main")
        #expect(links.diff(base: "a", head: "b", environment: "e+f") == "/p/my%20app/diff?base=a&head=b&environment=e%2Bf")
    }
}
