import Foundation
import LeakReport

/// Reading and checking the inputs of the query routes; each refusal is a 400 that names the
/// parameter, e.g. `base: expected a 40-digit hex commit id`.
enum QueryInput {
    /// Most commits a trend or history answers with, and the default.
    static let maxLimit = 1_000
    static let defaultLimit = 50

    /// A 40-digit hex commit id, lower-cased.
    static func commit(_ value: String?, field: String) throws -> String {
        guard let value else { throw HTTPFailure.badRequest("\(field): missing; give a 40-digit hex commit id") }
        guard CommitID.isValid(value) else {
            throw HTTPFailure.badRequest("\(field): expected a 40-digit hex commit id, found \"\(clip(value))\"")
        }
        return value.lowercased()
    }

    /// A required, non-empty query argument or path segment of at most 1,024 characters.
    static func text(_ value: String?, field: String) throws -> String {
        guard let value, !value.isEmpty else { throw HTTPFailure.badRequest("\(field): missing; it must not be empty") }
        guard !value.utf8.contains(0) else { throw HTTPFailure.badRequest("\(field): contains a NUL character") }
        // Code points, as JSON Schema's maxLength counts them (a grapheme can hold many).
        guard value.unicodeScalars.count <= 1_024 else {
            throw HTTPFailure.badRequest("\(field): longer than 1024 characters")
        }
        return value
    }

    /// `environment`, `default` when left out.
    static func environment(_ request: Request) throws -> String {
        try text(request.query["environment"] ?? "default", field: "environment")
    }

    /// `limit`, from 1 to `maxLimit`, `defaultLimit` when left out.
    static func limit(_ request: Request) throws -> Int {
        guard let raw = request.query["limit"] else { return defaultLimit }
        guard let limit = Int(raw), (1...maxLimit).contains(limit) else {
            throw HTTPFailure.badRequest("limit: expected a whole number from 1 to \(maxLimit), found \"\(clip(raw))\"")
        }
        return limit
    }

    /// Most items a page of a list answers with (`GET /types`, `GET /suppressions`), and the default.
    static let maxPageLimit = 1_000
    static let defaultPageLimit = 100

    /// A page's `limit`, from 1 to `maxPageLimit`, `defaultPageLimit` when left out.
    static func pageLimit(_ request: Request) throws -> Int {
        guard let raw = request.query["limit"] else { return defaultPageLimit }
        guard let limit = Int(raw), (1...maxPageLimit).contains(limit) else {
            throw HTTPFailure.badRequest("limit: expected a whole number from 1 to \(maxPageLimit), found \"\(clip(raw))\"")
        }
        return limit
    }

    /// `cursor`, the `next` of an earlier page of a list sorted by id: a positive whole number.
    static func idCursor(_ request: Request) throws -> Int64? {
        guard let raw = request.query["cursor"] else { return nil }
        guard let id = Int64(raw), id > 0 else {
            throw HTTPFailure.badRequest("cursor: expected the next of an earlier page (a positive whole number), found \"\(clip(raw))\"")
        }
        return id
    }

    /// Decodes a JSON body; a decoding failure is a 400 naming the key path.
    static func decode<Body: Decodable>(_ type: Body.Type, from body: Data) throws -> Body {
        guard !body.isEmpty else { throw HTTPFailure.badRequest("the body is empty; send a JSON object") }
        try refuseDuplicateKeys(body)
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch let error as DecodingError {
            throw HTTPFailure.badRequest(error.keyPathDescription)
        } catch {
            throw HTTPFailure.badRequest("the body is not valid JSON")
        }
    }

    /// A JSON body whose objects repeat a key is refused, naming it: decoding would keep one of
    /// the values and drop the other without a word.
    static func refuseDuplicateKeys(_ body: Data, code: String = "invalid_request") throws {
        if let path = RunRecordParser.duplicateKey(in: body) {
            throw HTTPFailure.badRequest("\(clip(path)): the key appears twice in its object; send each key once", code: code)
        }
    }

    /// Keeps an echoed value short enough to read.
    static func clip(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}
