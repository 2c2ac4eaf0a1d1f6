import Foundation

/// An HTTP response: a status, headers and a body.
public struct Response: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from any `Encodable` value.
    public static func json<Value: Encodable>(_ value: Value, status: Int = 200) throws -> Response {
        json(written: try jsonEncoder.encode(value), status: status)
    }

    /// A JSON response whose body is written already: by an answer's own writer, the bytes
    /// `json(_:status:)` would give (`DiffResponse.json()`, `TrendResponse.json()`,
    /// `UploadReceipt.json()`).
    public static func json(written body: Data, status: Int = 200) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A plain-text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    /// An HTML page, UTF-8. Build `page` with `HTML` so that every value in it is escaped.
    public static func html(_ page: String, status: Int = 200) -> Response {
        text(page, status: status, contentType: "text/html; charset=utf-8")
    }

    /// `{"error":{"code":"…","message":"…"}}` for an `HTTPError`.
    public static func error(_ error: any HTTPError) -> Response {
        let body = ErrorBody(error: .init(code: error.code, message: error.message))
        var response = (try? json(body, status: error.status)) ?? Response(status: error.status)
        response.headers.merge(error.headers) { _, new in new }
        return response
    }

    static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private struct ErrorBody: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
        }
        var error: Detail
    }
}
