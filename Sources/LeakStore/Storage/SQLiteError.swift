import CSQLite

/// A SQLite call that failed: the extended result code, SQLite's own message, and the SQL that
/// was running. Bound values are never included, so the error is safe to log.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code, e.g. 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    public var code: Int32
    /// `sqlite3_errmsg` at the time of the failure.
    public var message: String
    /// The statement that failed, when there was one.
    public var sql: String?

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …).
    public var primaryCode: Int32 { code & 0xFF }

    public var description: String {
        var text = "SQLite error \(code) (\(String(cString: sqlite3_errstr(code)))): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }
}
