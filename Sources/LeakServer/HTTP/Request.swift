import Foundation

/// One HTTP request, body read in full (and decompressed) before a handler sees it.
public struct Request: Sendable {
    /// The method as the client sent it (`GET`, `POST`, or something the router does not know).
    public var method: String
    /// The path without the query string, e.g. `/v1/projects/app/runs`.
    public var path: String
    /// Query arguments; the last value wins when a name repeats.
    public var query: [String: String]
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: Data
    /// Values of `{name}` segments in the matched route pattern.
    public var parameters: [String: String] = [:]
    /// Set by the dispatcher when it left the token's check to the handler's write
    /// (`TokenCheck.inWrite`).
    var credentialLeftToWrite = false

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: Data = Data()) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }

    /// A header by name, case-insensitively.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The value of route parameter `{name}`; the router guarantees it exists for a matched route.
    public func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// The token after `Authorization: Bearer`, if any.
    public var bearerToken: String? { Self.bearerToken(in: header("authorization")) }

    /// The token in an `Authorization` value (`Bearer <token>`), if any.
    static func bearerToken(in authorization: String?) -> String? {
        guard let value = authorization else { return nil }
        // Foundation's trimming cost ~45,000 instructions a request (callgrind), splitting into
        // `Character`s ~20,000: the usual form, `Bearer ` and a token that begins and ends with a
        // visible ASCII character, is read as bytes; anything else the general way.
        let visible = UInt8(ascii: "!")...UInt8(ascii: "~")
        let scheme = "Bearer ".utf8
        if value.utf8.starts(with: scheme) {
            let token = value.utf8.dropFirst(scheme.count)
            if let first = token.first, let last = token.last, visible.contains(first), visible.contains(last) {
                return String(Substring(token))
            }
        }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        if let first = parts[1].utf8.first, let last = parts[1].utf8.last, visible.contains(first), visible.contains(last) {
            return String(parts[1])
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

extension Data {
    /// The bytes, leaving this empty: for a buffer handed on to its one next owner.
    mutating func take() -> Data {
        let taken = self
        self = Data()
        return taken
    }
}
