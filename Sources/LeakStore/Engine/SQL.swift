/// A statement and the values it binds, built by interpolation: each interpolated value becomes
/// a parameter (`?`) bound to it, never text of the statement — as the dashboard's `HTML`
/// escapes whatever it interpolates. SQL text the store builds itself (a condition of
/// `KeyStateStore`, a list of `SQLConnection.idCondition`) goes in as `\(raw:)`, a fragment
/// built the same way as itself, its values after those before it.
///
/// ```swift
/// let newer: SQL = "SELECT id, pattern FROM suppressions WHERE project_id = \(projectID) AND id > \(after)"
/// try db.query(sql: newer) { row in ids.append(row.int64("id")) }
/// ```
///
/// The text is the same whatever the values, so a connection prepares it once.
package struct SQL: Sendable, ExpressibleByStringInterpolation {
    /// The statement, a `?` for each value.
    package private(set) var text: String
    /// The values, in the order of their `?`.
    package private(set) var values: [SQLValue]

    package init(stringLiteral text: String) {
        self.text = text
        values = []
    }

    package init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        values = stringInterpolation.values
    }

    /// A shape's statement (`SQLShape`): its text and the values read from its arguments.
    fileprivate init(text: String, values: [SQLValue]) {
        self.text = text
        self.values = values
    }

    /// `fragments` one after another, `separator` (SQL text) between them: a `VALUES` list.
    package init(joining fragments: some Sequence<SQL>, separator: String) {
        text = ""
        values = []
        for fragment in fragments {
            if !text.isEmpty { text += separator }
            text += fragment.text
            values += fragment.values
        }
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var values: [SQLValue] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 2 * interpolationCount)
            values.reserveCapacity(interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) { text += literal }

        /// A value: bound, NULL for nil.
        package mutating func appendInterpolation(_ value: SQLValue) {
            text += "?"
            values.append(value)
        }

        package mutating func appendInterpolation(_ value: Int64?) { appendInterpolation(value.map(SQLValue.integer) ?? .null) }

        package mutating func appendInterpolation(_ value: Int?) { appendInterpolation(value.map { .integer(Int64($0)) } ?? .null) }

        package mutating func appendInterpolation(_ value: String?) { appendInterpolation(SQLValue.text(value)) }

        /// SQLite's and PostgreSQL's integer boolean: 1 or 0.
        package mutating func appendInterpolation(_ value: Bool) { appendInterpolation(SQLValue.integer(value ? 1 : 0)) }

        /// Values one after another, a `?` each, separated by commas: an `IN` list. The
        /// placeholders go in as one string, not one append a value.
        package mutating func appendInterpolation(list values: [SQLValue]) {
            text += SQL.placeholders(values.count)
            self.values += values
        }

        /// SQL text the store built: kept as it is.
        package mutating func appendInterpolation(raw text: String) { self.text += text }

        /// A fragment: its text, its values after those before it.
        package mutating func appendInterpolation(_ fragment: SQL) {
            text += fragment.text
            values += fragment.values
        }

        /// A shape's fragment (`SQLShape`) with the values it reads from `arguments`.
        package mutating func appendInterpolation<Arguments>(_ shape: SQLShape<Arguments>, _ arguments: Arguments) {
            text += shape.text
            values += shape.values(of: arguments)
        }
    }

    /// `count` placeholders separated by commas (`?, ?, ?`).
    static func placeholders(_ count: Int) -> String {
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: 3 * count - 2) { buffer in
            for index in 0..<count {
                if index > 0 {
                    buffer[3 * index - 2] = UInt8(ascii: ",")
                    buffer[3 * index - 1] = UInt8(ascii: " ")
                }
                buffer[3 * index] = UInt8(ascii: "?")
            }
            return 3 * count - 2
        }
    }
}

/// A statement written once for a kind of arguments, as `SQL` is written — every interpolation
/// binds, never text: a property of the arguments (`\(\.commitID)`, read at each use) or a
/// fragment of the same arguments. Its text is made when the shape is (a `static let`), so a
/// statement asked many times a request (a walk's step) does not assemble its text again at
/// each use: `shape(arguments)` only reads the values.
///
/// ```swift
/// static let step: SQLShape<Step> = "SELECT sha FROM commits WHERE project_id = \(\.projectID) AND id = \(\.commitID)"
/// try db.query(sql: Self.step(Step(projectID: projectID, commitID: id))) { row in … }
/// ```
package struct SQLShape<Arguments>: Sendable, ExpressibleByStringInterpolation {
    /// The statement, a `?` for each value.
    package let text: String
    /// How each value is read from the arguments, in the order of their `?`.
    private let readers: [@Sendable (Arguments) -> SQLValue]

    package init(stringLiteral text: String) {
        self.text = text
        readers = []
    }

    package init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        readers = stringInterpolation.readers
    }

    /// The statement with the values of `arguments`; its text is the shape's own, not a copy.
    package func callAsFunction(_ arguments: Arguments) -> SQL {
        SQL(text: text, values: values(of: arguments))
    }

    /// The values the statement binds, read from `arguments`.
    package func values(of arguments: Arguments) -> [SQLValue] {
        readers.map { $0(arguments) }
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var readers: [@Sendable (Arguments) -> SQLValue] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 2 * interpolationCount)
            readers.reserveCapacity(interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) { text += literal }

        /// A value read from the arguments at each use: bound, NULL for nil.
        package mutating func appendInterpolation(_ value: @escaping @Sendable (Arguments) -> Int64) {
            text += "?"
            readers.append { .integer(value($0)) }
        }

        package mutating func appendInterpolation(_ value: @escaping @Sendable (Arguments) -> Int) {
            text += "?"
            readers.append { .integer(Int64(value($0))) }
        }

        package mutating func appendInterpolation(_ value: @escaping @Sendable (Arguments) -> String?) {
            text += "?"
            readers.append { .text(value($0)) }
        }

        /// SQL text the store built: kept as it is.
        package mutating func appendInterpolation(raw text: String) { self.text += text }

        /// A fragment of the same arguments: its text, its values after those before it.
        package mutating func appendInterpolation(_ fragment: SQLShape<Arguments>) {
            text += fragment.text
            readers += fragment.readers
        }
    }
}

/// The statements built as `SQL`, under the label `sql:`: a string literal there can only be an
/// `SQL`, never a `String` whose interpolations would be spliced into the text.
extension SQLConnection {
    /// Runs `sql` and calls `row` for each result row.
    package func query(sql: SQL, row: (any SQLRow) throws -> Void) throws {
        try query(sql.text, sql.values, row: row)
    }

    /// Runs `sql`, ignoring any rows.
    package func run(sql: SQL) throws {
        try query(sql.text, sql.values) { _ in }
    }

    /// The first column of the first row, as an integer; nil when there is no row or it is NULL.
    package func scalarInt(sql: SQL) throws -> Int64? {
        try scalarInt(sql.text, sql.values)
    }

    /// The first column of the first row, as text.
    package func scalarText(sql: SQL) throws -> String? {
        try scalarText(sql.text, sql.values)
    }
}
