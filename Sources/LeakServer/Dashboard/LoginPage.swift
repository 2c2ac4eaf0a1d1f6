import Foundation
import LeakStore

/// `GET /login`, `POST /login`, `POST /logout`: how a browser reads the dashboard of a server
/// that requires read tokens. The form takes a token of the project (read or write), and the
/// answer sets a session cookie (`DashboardSessions`) that opens that project's pages, read
/// only. The API itself never takes the cookie: scripts keep sending `Authorization: Bearer`.
enum LoginPage {
    /// Sends a browser to the form, which brings it back to `next` once signed in.
    static func redirect(next: String) -> Response {
        Response(status: 303, headers: ["Location": "/login?next=" + DashboardLinks.segment(safeNext(next)),
                                        "Cache-Control": "no-store"])
    }

    static func form(next: String, problem: String? = nil, status: Int = 200) -> Response {
        let note: HTML = problem.map { "<p class=\"problem\" data-status=\"\(status)\">\($0)</p>" } ?? ""
        let body: HTML = """
            \(note)
            <p>This server requires a token to read its projects. Paste a token of the project you want to see
            (<code>leakhistory-server tokens create PROJECT --read</code> makes a read-only one); the browser keeps
            a session cookie for it, and the token itself is not stored.</p>
            <form method="post" action="/login">
            <input type="hidden" name="next" value="\(safeNext(next))">
            <label>Token <input type="password" name="token" autocomplete="off" required size="60"></label>
            <button type="submit">Sign in</button>
            </form>
            """
        var response = DashboardPage.render(title: "Sign in", crumbs: [.init(label: "Sign in")], body: body, status: status)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// Only a path on this server: never `//elsewhere` or a full URL (an open redirect).
    static func safeNext(_ next: String) -> String {
        guard next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
              !next.unicodeScalars.contains(where: { $0.value < 0x20 })
        else { return "/" }
        return next
    }
}

enum LoginRoutes {
    static func register(in router: inout Router) {
        router.get("/login") { request, _ in LoginPage.form(next: request.query["next"] ?? "/") }
        router.post("/login", handler: signIn)
        router.post("/logout") { request, context in
            if let cookie = DashboardSessions.cookie(in: request) { context.sessions.end(cookie) }
            return Response(status: 303, headers: [
                "Location": "/login",
                "Set-Cookie": "\(DashboardSessions.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0",
            ])
        }
    }

    @Sendable
    static func signIn(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        try refuseCrossSite(request)
        let fields = form(request.body)
        let asked = LoginPage.safeNext(fields["next"] ?? "/")
        guard let token = fields["token"]?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
            return LoginPage.form(next: asked, problem: "Paste a token to sign in.", status: 400)
        }
        guard case let .valid(id, project, _) = try context.store.verifyToken(token) else {
            return LoginPage.form(next: asked, problem: "This token is not known to the server, or was revoked.", status: 401)
        }
        // `/` lists no projects on such a server: signed in from there, go to the token's project.
        let next = asked == "/" ? DashboardLinks(project: project).project() : asked
        let cookie = context.sessions.create(tokenID: id)
        let maxAge = Int(context.sessions.lifetime.components.seconds)
        return Response(status: 303, headers: [
            "Location": next,
            "Set-Cookie": "\(DashboardSessions.cookieName)=\(cookie); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(maxAge)",
            "Cache-Control": "no-store",
        ])
    }

    /// A form posted from another site (login CSRF) is refused: a browser sends `Origin` with
    /// every POST, and it must name this server.
    private static func refuseCrossSite(_ request: Request) throws {
        guard let origin = request.header("origin"), let host = request.header("host") else { return }
        guard origin == "http://\(host)" || origin == "https://\(host)" else {
            throw HTTPFailure.forbidden("the sign-in form was posted from \(QueryInput.clip(origin)), not from this server")
        }
    }

    /// `application/x-www-form-urlencoded` fields; the last value wins.
    static func form(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
