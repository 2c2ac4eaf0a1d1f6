/// A value to bind to a statement parameter, the same for every engine.
package enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// `.text(value)`, or `.null` for nil.
    package static func text(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
}

/// One result row, read by column (0-based), valid only inside the row callback.
package protocol SQLRow {
    func int64(at column: Int32) -> Int64
    func double(at column: Int32) -> Double
    func isNull(at column: Int32) -> Bool
    func string(at column: Int32) -> String?
}

extension SQLRow {
    package func int(at column: Int32) -> Int { Int(int64(at: column)) }
}

/// A multi-row insert: `INSERT INTO <into> VALUES (…), (…) <suffix>`. SQLite steps one prepared
/// statement per row; PostgreSQL sends many rows a statement (one round trip per batch).
package struct RowInsert: Sendable {
    /// `checks (run_id, scenario_id, …)`.
    package let into: String
    package let columnCount: Int
    /// What follows the values, e.g. an `ON CONFLICT` or a `RETURNING` clause; "" for none.
    package let suffix: String
    /// Whether the insert (whose conflicts do nothing) returns the rows it adds, each as its `id`
    /// (the table's rowid) followed by the values inserted; not always all of them (SQLite returns
    /// none of a statement's rows when it did not add them all), so the caller reads back what it
    /// still needs. SQLite does
    /// not run a `RETURNING` clause for it: SQLite gathers a `RETURNING` statement's rows in a
    /// temporary b-tree it opens and closes every time, a third of an upload with new keys; the
    /// connection works the ids
    /// out from the last one inserted instead (`SQLiteConnection.insert`).
    package let returnsAddedRows: Bool
    /// `INSERT INTO <into> VALUES (?, …) <suffix>`, made once: the engines look their prepared
    /// statement up by it for every insert. Without the `RETURNING` of `returnsAddedRows`.
    package let oneRowSQL: String

    package init(into: String, columnCount: Int, suffix: String = "", returnsAddedRows: Bool = false) {
        self.into = into
        self.columnCount = columnCount
        self.returnsAddedRows = returnsAddedRows
        oneRowSQL = "INSERT INTO \(into) VALUES " + Self.values(columnCount) + (suffix.isEmpty ? "" : " " + suffix)
        // `into` is `table (columns)`: the columns follow `id` in what is returned.
        let columns = into.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }
        self.suffix = returnsAddedRows ? suffix + " RETURNING id, " + columns : suffix
        sqliteSuffix = suffix
    }

    /// What follows the values on SQLite: `suffix` without the `RETURNING` of `returnsAddedRows`.
    private let sqliteSuffix: String

    /// `INSERT INTO <into> VALUES (?, …), (?, …) <suffix>` with `rows` rows, SQLite's multi-row form.
    package func sql(rows: Int) -> String {
        "INSERT INTO \(into) VALUES " + Array(repeating: Self.values(columnCount), count: rows).joined(separator: ", ")
            + (sqliteSuffix.isEmpty ? "" : " " + sqliteSuffix)
    }

    /// `(?, ?, …)`: one row's parameters.
    private static func values(_ count: Int) -> String {
        "(" + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
    }
}

/// A row an insert with `RowInsert.returnsAddedRows` added, built from its id and the values bound.
package struct AddedRow: SQLRow {
    let id: Int64
    let values: [SQLValue]

    private func value(at column: Int32) -> SQLValue { column == 0 ? .integer(id) : values[Int(column) - 1] }

    package func int64(at column: Int32) -> Int64 {
        switch value(at: column) {
        case let .integer(value): value
        case let .real(value): Int64(value)
        case .null, .text: 0
        }
    }

    package func double(at column: Int32) -> Double {
        switch value(at: column) {
        case let .integer(value): Double(value)
        case let .real(value): value
        case .null, .text: 0
        }
    }

    package func isNull(at column: Int32) -> Bool { value(at: column) == .null }

    package func string(at column: Int32) -> String? {
        switch value(at: column) {
        case .null: nil
        case let .integer(value): String(value)
        case let .real(value): String(value)
        case let .text(value): value
        }
    }
}

/// One database connection as the store's queries use it, whatever the engine. The SQL is
/// written once, in the dialect both engines accept (`?` or `?N` parameters; the PostgreSQL
/// connection renumbers them and drops SQLite's `INDEXED BY` hints). Used by one thread at a
/// time: whoever checked it out.
package protocol SQLConnection: AnyObject {
    /// Runs statements that bind nothing, such as a migration script.
    func execute(_ sql: String) throws
    /// Runs `sql` with `values` bound and calls `row` for each result row.
    func query(_ sql: String, _ values: [SQLValue], row: (any SQLRow) throws -> Void) throws
    /// Inserts `rows` (each `insert.columnCount` values) in as few statements as the engine
    /// likes, and calls `returned` for each row the insert returns (`RETURNING` in its suffix).
    func insert(_ insert: RowInsert, rows: [[SQLValue]], returned: (any SQLRow) throws -> Void) throws
    /// The ids of `names` in `table` (`types` or `scenarios`), inserting the missing ones in
    /// the order given. Safe when several servers intern the same names at once: an insert
    /// that loses does nothing, and the name is read again.
    func intern(_ names: [String], in table: StaticString) throws -> [String: Int64]
    /// Whether the schema holds a table of this name (the engine's catalog: `sqlite_master`, `pg_tables`).
    func tableExists(_ name: String) throws -> Bool
    /// Whether a write transaction is the only one: SQLite's write lock, taken when it begins.
    /// Where several write at once (PostgreSQL's servers), a row a write depends on is locked by
    /// writing it, not read.
    var writesAlone: Bool { get }
    /// Whether each statement is a round trip to a database server (PostgreSQL) rather than a
    /// call into this process (SQLite): where it
    /// is, a reader that asks in growing steps starts with a bigger one.
    var statementsAreRoundTrips: Bool { get }
}

extension SQLConnection {
    /// A statement or three per name: cheap where the database is in the process (SQLite).
    package func intern(_ names: [String], in table: StaticString) throws -> [String: Int64] {
        var ids: [String: Int64] = [:]
        let select = "SELECT id FROM \(table) WHERE name = ?"
        for name in names {
            guard let id = try scalarInt(select, [.text(name)])
                ?? scalarInt("INSERT INTO \(table) (name) VALUES (?) ON CONFLICT (name) DO NOTHING RETURNING id", [.text(name)])
                ?? scalarInt(select, [.text(name)])
            else { throw LeakStoreError.unavailable("interning \(name) in \(table) returned no id") }
            ids[name] = id
        }
        return ids
    }
}

extension SQLConnection {
    /// Inserts `rows` (each `insert.columnCount` values) in as few statements as the engine likes.
    package func insert(_ insert: RowInsert, rows: [[SQLValue]]) throws {
        try self.insert(insert, rows: rows) { _ in }
    }

    /// Runs `sql` with `values` bound, ignoring any rows.
    package func run(_ sql: String, _ values: [SQLValue] = []) throws {
        try query(sql, values) { _ in }
    }

    package func query(_ sql: String, row: (any SQLRow) throws -> Void) throws {
        try query(sql, [], row: row)
    }

    /// The first column of the first row, as an integer; nil when there is no row or it is NULL.
    package func scalarInt(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
        var result: Int64?
        var seen = false
        try query(sql, values) { row in
            if !seen, !row.isNull(at: 0) { result = row.int64(at: 0) }
            seen = true
        }
        return result
    }

    /// The first column of the first row, as text.
    package func scalarText(_ sql: String, _ values: [SQLValue] = []) throws -> String? {
        var result: String?
        var seen = false
        try query(sql, values) { row in
            if !seen { result = row.string(at: 0) }
            seen = true
        }
        return result
    }
}
