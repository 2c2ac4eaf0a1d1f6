/// An error that knows its HTTP status: the server answers it as
/// `{"error":{"code":"…","message":"…"}}`. Any other error becomes a logged 500 whose body
/// says nothing about the internals.
public protocol HTTPError: Error, Sendable {
    var status: Int { get }
    /// A stable machine-readable code, e.g. `invalid_report`.
    var code: String { get }
    /// What happened and what to do, for a person.
    var message: String { get }
    /// Extra headers, e.g. `Allow` on a 405 or `WWW-Authenticate` on a 401.
    var headers: [String: String] { get }
}

extension HTTPError {
    public var headers: [String: String] { [:] }
}

/// The everyday `HTTPError`: a status, a code and a message.
public struct HTTPFailure: HTTPError, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    public var headers: [String: String]

    public init(_ status: Int, _ code: String, _ message: String, headers: [String: String] = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(code): \(message)" }

    public static func badRequest(_ message: String, code: String = "invalid_request") -> HTTPFailure {
        HTTPFailure(400, code, message)
    }

    public static func unauthorized(_ message: String) -> HTTPFailure {
        HTTPFailure(401, "unauthorized", message, headers: ["WWW-Authenticate": "Bearer"])
    }

    public static func forbidden(_ message: String) -> HTTPFailure { HTTPFailure(403, "forbidden", message) }
    public static func notFound(_ message: String) -> HTTPFailure { HTTPFailure(404, "not_found", message) }
    public static func payloadTooLarge(_ message: String) -> HTTPFailure { HTTPFailure(413, "payload_too_large", message) }
}
