/// A libpq call that failed: the SQLSTATE (`23505`, `08006`, …; empty when the connection
/// itself failed), PostgreSQL's message, and the SQL that was running. Bound values are never
/// included, so the error is safe to log.
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    package var sqlState: String
    package var message: String
    package var sql: String?
    /// The connection was lost (or never made): what failed may not be the statement's fault.
    package var connectionLost: Bool

    package var description: String {
        var text = "PostgreSQL error\(sqlState.isEmpty ? "" : " \(sqlState)"): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }

    /// A lost race between servers: a unique key another transaction took first, a
    /// serialization failure or a deadlock. Running the transaction again settles it.
    var isLostRace: Bool { ["23505", "40001", "40P01"].contains(sqlState) }

    /// The store's word for it, or nil for one that stays a logged 500.
    var storeError: LeakStoreError? {
        if connectionLost || sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState) {
            return .unavailable(message)
        }
        switch sqlState {
        case "53100": return .full(message)
        case "57014": return .queryTimeout(message)
        case "53200", "53300", "55P03", "40001", "40P01": return .busy(message)
        default: return nil
        }
    }
}
