import CSQLite
import Foundation

/// A prepared statement owned by one `SQLiteConnection`'s cache.
///
/// Bind with `bind(_:at:)` (1-based, as SQLite counts), read rows with `step()` and the
/// column accessors. The cache resets the statement and clears its bindings before handing it
/// out again.
package final class SQLiteStatement: SQLRow {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    package let sql: String

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `value` to parameter `index` (1-based, as SQLite counts); nil binds NULL.
    package func bind(_ value: String?, at index: Int32) throws {
        guard let value else { return try bindNull(at: index) }
        // An explicit byte count keeps a string with an embedded NUL whole.
        try bound(sqlite3_bind_text(handle, index, value, Int32(value.utf8.count), lh_sqlite_transient()))
    }

    package func bind(_ value: Int64?, at index: Int32) throws {
        guard let value else { return try bindNull(at: index) }
        try bound(sqlite3_bind_int64(handle, index, value))
    }

    package func bind(_ value: Int?, at index: Int32) throws {
        try bind(value.map(Int64.init), at: index)
    }

    package func bind(_ value: Double?, at index: Int32) throws {
        guard let value else { return try bindNull(at: index) }
        try bound(sqlite3_bind_double(handle, index, value))
    }

    package func bind(_ value: Bool, at index: Int32) throws {
        try bind(Int64(value ? 1 : 0), at: index)
    }

    /// Binds `bytes` as a blob (SQLite copies them).
    package func bind(bytes: [UInt8], at index: Int32) throws {
        // An empty array has no bytes to point at, and a null pointer would bind NULL.
        try bound(bytes.isEmpty ? sqlite3_bind_zeroblob(handle, index, 0) : bytes.withUnsafeBytes {
            sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), lh_sqlite_transient())
        })
    }

    package func bindNull(at index: Int32) throws {
        try bound(sqlite3_bind_null(handle, index))
    }

    /// Throws for a bind that failed. The connection (`unowned`, so retained for each access)
    /// and the SQL are touched only then, not for every value bound.
    @inline(__always)
    private func bound(_ rc: Int32) throws {
        if rc != SQLITE_OK { try connection.check(rc, sql: sql) }
    }

    /// Binds each value in order from parameter `first` (1, the first, unless told).
    package func bind(_ values: [SQLValue], from first: Int32 = 1) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset) + first
            switch value {
            case .null: try bindNull(at: index)
            case let .integer(v): try bind(v, at: index)
            case let .real(v): try bind(v, at: index)
            case let .text(v): try bind(v, at: index)
            }
        }
    }

    /// Steps once: true when a row is ready to read, false when the statement is done.
    @discardableResult
    package func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            try connection.check(rc, sql: sql)
            return false
        }
    }

    /// Values of the current row's columns (0-based), valid until the next `step()`.
    package func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    package func double(at column: Int32) -> Double { sqlite3_column_double(handle, column) }
    /// The bytes of a blob column (none for NULL or an empty blob), valid until the next step.
    package func blob(at column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(sqlite3_column_bytes(handle, column))
        return UnsafeRawBufferPointer(start: count > 0 ? sqlite3_column_blob(handle, column) : nil, count: count)
    }

    /// The blob column the statement names `name` (`blob(at:)`).
    package func blob(_ name: String) -> UnsafeRawBufferPointer {
        guard let column = column(named: name) else { preconditionFailure("the statement selects no column named \(name)") }
        return blob(at: column)
    }

    package func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The statement's columns by name, read once: the statement is prepared once and kept.
    private lazy var columnsByName: [String: Int32] = {
        var columns: [String: Int32] = [:]
        for column in 0..<sqlite3_column_count(handle) {
            if let name = sqlite3_column_name(handle, column) { columns[String(cString: name)] = columns[String(cString: name)] ?? column }
        }
        return columns
    }()

    package func column(named name: String) -> Int32? { columnsByName[name] }

    package func string(at column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}
