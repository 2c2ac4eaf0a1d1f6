/// Maps a method and a path to a handler. `on(_:_:handler:)` is the one primitive; `get` and
/// `post` are sugar over it.
///
/// ```swift
/// var router = Router()
/// router.post("/v1/projects/{project}/runs") { request, context in … }
/// ```
/// Patterns are `/`-separated literal segments and `{name}` parameters. Registering the same
/// method and pattern twice (parameter names aside) is a programming error and traps at start-up.
public struct Router: Sendable {
    /// What every handler looks like. The handler owns the request: one that parses a big body
    /// may let go of its bytes once parsed (`RunUploadRoute`).
    public typealias Handler = @Sendable (consuming Request, RequestContext) throws -> any ResponseGenerator
    /// Draws a failure that happens before the handler runs (a refused token, a bad body), for
    /// routes that answer in HTML rather than the API's JSON error body.
    public typealias FailurePresenter = @Sendable (Request, any HTTPError) -> Response

    /// Who may call a route. The dispatcher checks it on the request's headers, before the body
    /// is read, so that a handler never runs (nor a body is buffered) for a caller without access.
    public enum Access: Sendable, Hashable {
        /// Anyone.
        case open
        /// Reads of `{project}`: open unless the configuration sets `requireReadToken`, then a
        /// token of the project (either scope) in `Authorization: Bearer`.
        case read
        /// A dashboard page of `{project}`: as `read`, and the dashboard's session cookie also counts.
        case page
        /// Writes to `{project}`: a write token in `Authorization: Bearer`, always.
        case write
        /// `/healthz` and `/metrics`: open unless `requireReadToken` is set and the configuration's
        /// `healthzWithoutToken` / `metricsWithoutToken` is false; then any live token.
        case healthz, metrics
    }

    /// A registered route.
    public struct Route: Sendable {
        public let method: HTTPMethod
        /// The pattern as registered, e.g. `/v1/projects/{project}/runs`; also the metrics label.
        public let pattern: String
        public let access: Access
        /// A `.write` route whose handler checks a remembered token in its own write transaction
        /// (`TokenCheck.inWrite`) rather than the dispatcher before it runs.
        let checksCredentialInWrite: Bool
        let segments: [Segment]
        let handler: Handler
        let presentFailure: FailurePresenter?
    }

    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)

        /// Parameters compare equal whatever their names: `{a}` and `{b}` clash.
        var shape: String {
            switch self {
            case let .literal(text): return text
            case .parameter: return "{}"
            }
        }
    }

    /// The result of looking a request up.
    public enum Match: Sendable {
        case found(Route, parameters: [String: String])
        /// The path exists, with these methods.
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    public private(set) var routes: [Route] = []

    public init() {}

    /// Registers `handler` for `method` and `pattern`, callable by whom `access` says.
    public mutating func on(_ method: HTTPMethod, _ pattern: String, access: Access = .open,
                            checksCredentialInWrite: Bool = false, presentFailure: FailurePresenter? = nil,
                            handler: @escaping Handler) {
        let segments = Self.segments(of: pattern)
        let shape = segments.map(\.shape)
        precondition(!routes.contains { $0.method == method && $0.segments.map(\.shape) == shape },
                     "Router: \(method.rawValue) \(pattern) is registered twice")
        precondition(access == .open || access == .healthz || access == .metrics || segments.contains(.parameter("project")),
                     "Router: \(pattern) checks a project's token but has no {project} segment")
        precondition(!checksCredentialInWrite || access == .write, "Router: only a write route checks its token in its write")
        routes.append(Route(method: method, pattern: pattern, access: access, checksCredentialInWrite: checksCredentialInWrite,
                            segments: segments, handler: handler, presentFailure: presentFailure))
    }

    public mutating func get(_ pattern: String, access: Access = .open, presentFailure: FailurePresenter? = nil,
                             handler: @escaping Handler) {
        on(.get, pattern, access: access, presentFailure: presentFailure, handler: handler)
    }

    public mutating func post(_ pattern: String, access: Access = .open, checksCredentialInWrite: Bool = false,
                              presentFailure: FailurePresenter? = nil, handler: @escaping Handler) {
        on(.post, pattern, access: access, checksCredentialInWrite: checksCredentialInWrite, presentFailure: presentFailure,
           handler: handler)
    }

    /// Finds the route for `method` and `path`.
    public func match(method: String, path: String) -> Match {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var allowed: [HTTPMethod] = []
        for route in routes {
            guard let parameters = Self.bind(route.segments, to: parts) else { continue }
            if route.method.rawValue == method { return .found(route, parameters: parameters) }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    private static func segments(of pattern: String) -> [Segment] {
        precondition(pattern.hasPrefix("/"), "Router: pattern \(pattern) must start with /")
        return pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            if part.hasPrefix("{"), part.hasSuffix("}"), part.count > 2 {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
    }

    private static func bind(_ segments: [Segment], to parts: [String]) -> [String: String]? {
        guard segments.count == parts.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case let .literal(text):
                guard text == part else { return nil }
            case let .parameter(name):
                guard !part.isEmpty else { return nil }
                parameters[name] = part
            }
        }
        return parameters
    }
}
