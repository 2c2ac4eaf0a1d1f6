import CSQLite
import Foundation

/// One SQLite connection with its prepared-statement cache.
///
/// A connection is used by one thread at a time: the store's group commit owns the writer, and a
/// reader belongs to whoever checked it out of the pool. That discipline, not a lock, is what
/// makes it safe to hand between threads, hence `@unchecked Sendable`.
package final class SQLiteConnection: SQLConnection, @unchecked Sendable {
    /// How to open the file.
    package enum Mode: Sendable {
        /// Read and write, creating the file when it is missing.
        case readWrite
        /// Read only; the file must exist.
        case readOnly
    }

    let handle: OpaquePointer
    package let path: String
    private var statements: [String: SQLiteStatement] = [:]
    /// The statements of `insert(_:rows:returned:)`, also in `statements`.
    private var multiRowStatements: [MultiRowInsert: SQLiteStatement] = [:]

    /// Opens `path`.
    /// - Parameter busyTimeoutMs: how long a statement waits for a lock before `SQLITE_BUSY`.
    /// - Throws: `SQLiteError` naming the file when it cannot be opened.
    package init(path: String, mode: Mode, busyTimeoutMs: Int32 = 5_000) throws {
        var db: OpaquePointer?
        let flags: Int32 = switch mode {
        case .readWrite: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        case .readOnly: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        }
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: "cannot open the database \(path): \(message)", sql: nil)
        }
        handle = db
        self.path = path
        memory = mode == .readOnly ? ConnectionMemory(keepsGraph: false) : nil
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMs)
        LeakStatesTable.register(on: db)
    }

    /// When set, SQLite's progress handler interrupts any statement still running after it.
    private var deadline: ContinuousClock.Instant?

    /// Interrupts statements that run past `deadline` (nil: none), by SQLite's progress handler,
    /// which checks the clock every few thousand virtual-machine steps; the statement fails
    /// with `SQLITE_INTERRUPT`. Called by the thread that uses the connection.
    func setDeadline(_ deadline: ContinuousClock.Instant?) {
        let had = self.deadline != nil
        self.deadline = deadline
        if deadline != nil, !had {
            sqlite3_progress_handler(handle, 4_000, { context in
                let connection = Unmanaged<SQLiteConnection>.fromOpaque(context!).takeUnretainedValue()
                guard let deadline = connection.deadline else { return 0 }
                return ContinuousClock.now > deadline ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
        } else if deadline == nil, had {
            sqlite3_progress_handler(handle, 0, nil, nil)
        }
    }

    deinit {
        sqlite3_progress_handler(handle, 0, nil, nil)
        multiRowStatements.removeAll()
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Throws a `SQLiteError` for any result code other than OK, ROW and DONE.
    func check(_ rc: Int32, sql: String?) throws {
        switch rc {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE: return
        default:
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
    }

    /// Runs one or more statements that bind nothing, such as a migration script or a PRAGMA.
    package func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql: sql)
    }

    /// The cached statement for `sql`, reset and with its bindings cleared.
    package func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil), sql: sql)
        guard let raw else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the SQL holds no statement", sql: sql)
        }
        let statement = SQLiteStatement(handle: raw, connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` with `values` bound and calls `row` for each result row.
    package func query(_ sql: String, _ values: [SQLValue], row: (any SQLRow) throws -> Void) throws {
        let statement = try statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        while try statement.step() { try row(statement) }
    }

    /// Multi-row statements (`VALUES (…), (…)`) of up to `StoreTuning.insertRowsPerStatement` rows, the rest in
    /// powers of two, so that a handful of prepared statements serve every row count; SQLite
    /// inserts the rows in the order given, and upserts each against the ones before it, as
    /// one statement a row did. For an insert that `returnsAddedRows`, a statement that added
    /// all its rows returns them as their rowids and the values bound: a new rowid is one more
    /// than the table's largest (short of the largest possible, 2^63 - 1, which no table here
    /// reaches: their ids are never given, only taken), so one statement's rows have consecutive
    /// ids ending at the last one inserted; the one writer connection inserts between them
    /// nothing else. A statement that added fewer (a row was there already) returns none.
    package func insert(_ insert: RowInsert, rows: [[SQLValue]], returned: (any SQLRow) throws -> Void) throws {
        let most = max(1, min(StoreTuning.insertRowsPerStatement, Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) / insert.columnCount))
        var start = 0
        while start < rows.count {
            let left = rows.count - start
            let count = left >= most ? most : 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
            let statement = try multiRowStatement(insert, rows: count)
            defer { statement.reset() }
            for (offset, values) in rows[start..<(start + count)].enumerated() {
                try statement.bind(values, from: Int32(offset * insert.columnCount + 1))
            }
            while try statement.step() { try returned(statement) }
            // An `ON CONFLICT … DO NOTHING` that did nothing changes no row.
            if insert.returnsAddedRows, sqlite3_changes(handle) == count {
                let first = lastInsertRowID - Int64(count) + 1
                for (offset, values) in rows[start..<(start + count)].enumerated() {
                    try returned(AddedRow(id: first + Int64(offset), values: values, columns: insert.returnedColumns))
                }
            }
            start += count
        }
    }

    /// An insert's statement of `rows` rows, reset; kept by the insert and the count, not by its
    /// SQL text: the text of 32 rows is long to hash for every statement.
    private func multiRowStatement(_ insert: RowInsert, rows: Int) throws -> SQLiteStatement {
        let key = MultiRowInsert(oneRowSQL: insert.oneRowSQL, rows: rows)
        if let cached = multiRowStatements[key] {
            cached.reset()
            return cached
        }
        let statement = try self.statement(rows == 1 ? insert.oneRowSQL : insert.sql(rows: rows))
        multiRowStatements[key] = statement
        return statement
    }

    private struct MultiRowInsert: Hashable {
        var oneRowSQL: String
        var rows: Int
    }

    package var writesAlone: Bool { true }
    package var walkReads: StoreTuning.WalkReads { StoreTuning.walkReadsInProcess }
    /// A reader's (`.readOnly`) memory of key names (`ConnectionMemory(keepsGraph: false)`); a
    /// writer keeps none (its transaction may insert keys and roll back).
    package let memory: ConnectionMemory?

    package func tableExists(_ name: String) throws -> Bool {
        try scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) ?? 0 > 0
    }

    /// The rowid of the last INSERT on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// True inside a transaction; false once SQLite has rolled one back by itself (after some
    /// errors, such as a full disk, it does).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        // Prepared once, like every other statement: `sqlite3_exec` compiled them anew each time,
        // a few % of a 10-check upload.
        try run(kind.begin)
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            if inTransaction {
                try? execute("ROLLBACK")
            }
            throw error
        }
    }

    /// SQLite's transaction kinds; the writer always takes IMMEDIATE so that it never has to
    /// upgrade a read lock halfway through.
    package enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"

        var begin: String {
            switch self {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            }
        }
    }
}
