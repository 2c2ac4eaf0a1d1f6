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

        /// Values one after another, a `?` each, separated by commas: an `IN` list.
        package mutating func appendInterpolation(list values: [SQLValue]) {
            for index in values.indices { text += index == 0 ? "?" : ", ?" }
            self.values += values
        }

        /// SQL text the store built: kept as it is.
        package mutating func appendInterpolation(raw text: String) { self.text += text }

        /// A fragment: its text, its values after those before it.
        package mutating func appendInterpolation(_ fragment: SQL) {
            text += fragment.text
            values += fragment.values
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
