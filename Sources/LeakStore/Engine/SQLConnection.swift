import Foundation

/// A value to bind to a statement parameter, the same for every engine.
package enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    /// `.text(value)`, or `.null` for nil.
    package static func text(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
}

/// One result row, read by column (0-based, or by name), valid only inside the row callback.
package protocol SQLRow {
    func int64(at column: Int32) -> Int64
    func double(at column: Int32) -> Double
    func isNull(at column: Int32) -> Bool
    func string(at column: Int32) -> String?
    /// The position of the column the statement names `name` (its column's name, or its `AS`).
    func column(named name: String) -> Int32?
}

extension SQLRow {
    package func int(at column: Int32) -> Int { Int(int64(at: column)) }

    /// The column `name`: a name the statement does not select is a mistake in the store's code.
    private func position(_ name: String) -> Int32 {
        guard let column = column(named: name) else { preconditionFailure("the statement selects no column named \(name)") }
        return column
    }

    package func int64(_ name: String) -> Int64 { int64(at: position(name)) }
    package func int(_ name: String) -> Int { int(at: position(name)) }
    package func double(_ name: String) -> Double { double(at: position(name)) }
    package func isNull(_ name: String) -> Bool { isNull(at: position(name)) }
    package func string(_ name: String) -> String? { string(at: position(name)) }
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
    /// temporary b-tree it opens and closes every time; the connection works the ids
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
        returnedColumns = ["id"] + columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        sqliteSuffix = suffix
    }

    /// The names of what a row it returns holds: `id`, then the columns inserted.
    package let returnedColumns: [String]

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
    /// `RowInsert.returnedColumns`.
    let columns: [String]

    package func column(named name: String) -> Int32? { columns.firstIndex(of: name).map(Int32.init) }

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
/// written once, in the dialect both engines accept, as `SQL` literals whose interpolations are
/// `?` parameters (the PostgreSQL connection numbers them, takes the upgrades' `?N` as they are,
/// and drops SQLite's `INDEXED BY` hints). Used by one thread at a time: whoever checked it out.
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
    /// How many commits a first-parent walk reads a statement (`ProjectHistory.firstParentLine`):
    /// bigger where each statement is a round trip to a database server (PostgreSQL) rather than
    /// a call into this process (SQLite).
    var walkReads: StoreTuning.WalkReads { get }
    /// What this connection keeps from one read to the next (`ConnectionMemory`), forgotten only
    /// where the engine's read takes the connection (`ConnectionMemory.beginRead(session:)`); nil
    /// where it keeps nothing of the kind. A SQLite reader's keeps key names only
    /// (`keepsGraph` false): the walk that reads a remembered graph checks it with one statement
    /// over arrays (`unnest`) SQLite does not have, but naming a type's keys is a join and two
    /// strings a key even from the page cache; a SQLite writer keeps none. SQLite's other cache
    /// per connection is the `leak_states` virtual table's decoded commits (`LeakStatesTable`),
    /// forgotten when the database's `PRAGMA data_version` moves.
    var memory: ConnectionMemory? { get }

    /// `ids` as statements bind them: one batch of parameters each, whose ids the condition of
    /// `idCondition` holds for — at most `perStatement` ids a batch (the last padded with its last
    /// id, so that every batch is the same statement), or all of them in one array parameter.
    func idBatches(_ ids: [Int64], perStatement: Int) -> [(ids: Set<Int64>, values: [SQLValue])]
    /// The SQL condition that `column` is one of a batch's ids (`values`, a batch of `idBatches`),
    /// binding them.
    func idCondition(_ column: String, _ values: [SQLValue]) -> SQL

    /// Inserts the leak keys of `keys` that `leak_keys` lacks, in the order given, and hands `row`
    /// the rows (id, scenario, type, site) it knows from that: not always every key (one another
    /// server added first), which the caller reads back (`WriteSession.intern(keys:)`).
    func internKeys(_ keys: [(scenarioID: Int64, typeID: Int64, siteID: Int64?)], row: (any SQLRow) throws -> Void) throws
    /// The commit `sha` of the project stored (or found) with its branch and its parents' rows and
    /// links (`LeakStore.insertParents`, `LeakStore.linkParents`): its id.
    func upsertCommit(projectID: Int64, sha: String, branch: String?, receivedAt: String, parents: [String]) throws -> Int64
    /// Runs `body`, which fills this empty database table by table with the rows of another, ids
    /// included (`LeakStore.copy(into:)`); the ids of `tablesWithIDs` continue after the copied
    /// ones afterwards. An engine that checks keys row by row may set them aside meanwhile.
    func bulkLoad(tablesWithIDs: [String], _ body: () throws -> Void) throws
}

extension SQLConnection {
    /// A batch of at most `perStatement` parameters, padded: the statement is prepared once.
    package func idBatches(_ ids: [Int64], perStatement: Int) -> [(ids: Set<Int64>, values: [SQLValue])] {
        ids.batches(of: perStatement).map { chunk in (Set(chunk), chunk.padded(to: perStatement).map(SQLValue.integer)) }
    }

    /// An IN list, a parameter an id.
    package func idCondition(_ column: String, _ values: [SQLValue]) -> SQL {
        "\(raw: column) IN (\(list: values))"
    }

    /// The multi-row insert, whose conflicts do nothing (`RowInsert.returnsAddedRows`).
    package func internKeys(_ keys: [(scenarioID: Int64, typeID: Int64, siteID: Int64?)], row: (any SQLRow) throws -> Void) throws {
        try insert(WriteSession.keyInsert, rows: keys.map { [.integer($0.scenarioID), .integer($0.typeID), $0.siteID.map(SQLValue.integer) ?? .null] },
                   returned: row)
    }

    /// The rows as they come, keys checked as each arrives.
    package func bulkLoad(tablesWithIDs: [String], _ body: () throws -> Void) throws { try body() }
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
