/// Headers on every answer, JSON or HTML, success or refusal, added where every response is
/// queued (`MicroHTTPDServer`): no page can forget them.
enum SecurityHeaders {
    /// The dashboard draws with inline styles and inline SVG and runs no script; forms post to
    /// this server only, and no other site may frame a page (clickjacking).
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'"

    static let all: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// `headers` with every security header added; a route cannot drop or loosen one.
    static func merged(into headers: [String: String]) -> [(String, String)] {
        let names = Set(all.map { $0.0.lowercased() })
        return headers.filter { !names.contains($0.key.lowercased()) }.map { ($0.key, $0.value) } + all
    }
}
