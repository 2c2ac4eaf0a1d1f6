import CSQLite

/// A SQLite call that failed: the extended result code, SQLite's own message, and the SQL that
/// was running. Bound values are never included, so the error is safe to log.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    package var code: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    package var message: String
    /// The statement that failed, when there was one.
    package var sql: String?

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    package var primaryCode: Int32 { code & 0xFF }

    package var description: String {
        var text = "SQLite error \(code) (\(String(cString: sqlite3_errstr(code)))): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
