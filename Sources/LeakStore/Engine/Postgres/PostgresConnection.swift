import CPostgres
import Foundation

/// One libpq connection with its prepared statements (`PQprepare`, named by the order they were
/// first used; text parameters, always bound, never spliced into the SQL).
///
/// Used by one thread at a time: whoever checked it out of the pool. That discipline, not a
/// lock, is what makes it safe to hand between threads, hence `@unchecked Sendable`.
package final class PostgresConnection: SQLConnection, @unchecked Sendable {
    private let handle: OpaquePointer
    /// SQL as the store writes it → its prepared statement on this connection.
    private var prepared: [String: PreparedStatement] = [:]
    /// A `RowInsert`'s one-row SQL → its `unnest` form (see `insert`).
    private var arrayInserts: [String: String] = [:]
    /// What this connection's reads learned, kept between them (`ConnectionMemory`), and
    /// forgotten at `beginRead()` only.
    package let memory: ConnectionMemory? = ConnectionMemory()
    /// Counted up at each `reset`: the session the memory's facts were learned in.
    private var session = 0

    /// Connects to `url` (libpq's `postgres://user@host:port/db?…` form).
    /// - Throws: `PostgresError` with `connectionLost` when the server cannot be reached.
    package init(url: String) throws {
        guard let connection = PQconnectdb(url) else {
            throw PostgresError(sqlState: "", message: "libpq could not allocate a connection", sql: nil, connectionLost: true)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
            PQfinish(connection)
            throw PostgresError(sqlState: "", message: "cannot connect to PostgreSQL: \(message)", sql: nil, connectionLost: true)
        }
        handle = connection
        try configureSession()
    }

    /// What every session (a new one, or one after `reset`) is set up with. NOTICEs ("relation
    /// already exists, skipping") are not for the server's stderr. Prepared statements run with
    /// their generic plan: planned at their first run, not at each. The store's statements are
    /// fixed shapes over indexes that fit any parameter (an id, a range of ids, a padded list),
    /// so a plan made for one set of values is the plan for every set; the custom plans
    /// PostgreSQL makes for the first five runs of a statement on each connection — and after
    /// those whenever it estimates a generic plan dearer — are planning a diff would spend time
    /// on at every request. A plan is made again when the tables' statistics change (ANALYZE).
    private func configureSession() throws {
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        try execute("SET plan_cache_mode = force_generic_plan")
    }

    deinit { PQfinish(handle) }

    /// False once the connection to the server is gone.
    package var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Reconnects with the same parameters (after a PostgreSQL restart); prepared statements
    /// are gone with the old session.
    /// - Returns: whether the connection is usable again.
    package func reset() -> Bool {
        prepared.removeAll()
        arrayInserts.removeAll()
        session += 1
        PQreset(handle)
        return isConnected && (try? configureSession()) != nil
    }

    /// Where a read takes this connection from the pool: the memory's one point of forgetting
    /// (`ConnectionMemory.beginRead(session:)`).
    func beginRead() {
        memory?.beginRead(session: session)
    }

    package func execute(_ sql: String) throws {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    package func query(_ sql: String, _ values: [SQLValue], row: (any SQLRow) throws -> Void) throws {
        let statement = try prepare(sql)
        let result = try withParameters(values) { count, parameters in
            PQexecPrepared(handle, statement.name, count, parameters, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result, sql: sql)
        try readRows(result, of: statement, row)
    }

    package var writesAlone: Bool { false }
    package var walkReads: StoreTuning.WalkReads { StoreTuning.walkReadsRoundTrips }

    /// All of them in one array parameter: the same statement for any number of ids, one round trip.
    package func idBatches(_ ids: [Int64], perStatement: Int) -> [(ids: Set<Int64>, values: [SQLValue])] {
        ids.isEmpty ? [] : [(Set(ids), [.text(PostgresArray.literal(integers: ids))])]
    }

    package func idCondition(_ column: String, _ values: [SQLValue]) -> SQL {
        "\(raw: column) = ANY(CAST(\(values[0]) AS BIGINT[]))"
    }

    /// In the schema the connection's `search_path` puts first.
    package func tableExists(_ name: String) throws -> Bool {
        try scalarInt("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?", [.text(name)]) ?? 0 > 0
    }

    /// Every row in one statement, one round trip: `INSERT INTO <into> SELECT * FROM
    /// unnest($1::<type>[], …) <suffix>`, each column's values sent as one array. The statement
    /// is prepared once per connection, whatever the row count, with each column's type as
    /// PostgreSQL infers it for the one-row `VALUES` form.
    package func insert(_ insert: RowInsert, rows: [[SQLValue]], returned: (any SQLRow) throws -> Void) throws {
        guard !rows.isEmpty else { return }
        var columns = Array(repeating: "{", count: insert.columnCount)
        for (index, row) in rows.enumerated() {
            for (column, value) in row.enumerated() {
                if index > 0 { columns[column].append(",") }
                PostgresArray.append(value, to: &columns[column])
            }
        }
        try query(try arrayInsertSQL(insert), columns.map { .text($0 + "}") }, row: returned)
    }

    /// Every name in one statement: the known ones read, the others inserted in the order given
    /// (so that servers interning the same names lock them in the same order). A name another
    /// server added after the statement's snapshot is read again.
    package func intern(_ names: [String], in table: StaticString) throws -> [String: Int64] {
        guard !names.isEmpty else { return [:] }
        var ids: [String: Int64] = [:]
        try query("""
            WITH wanted(name, position) AS (SELECT * FROM unnest(CAST(? AS text[])) WITH ORDINALITY),
                 found AS (SELECT t.id, t.name FROM \(table) t JOIN wanted w ON w.name = t.name),
                 added AS (INSERT INTO \(table) (name)
                           SELECT name FROM wanted WHERE name NOT IN (SELECT name FROM found) ORDER BY position
                           ON CONFLICT (name) DO NOTHING RETURNING id, name)
            SELECT id, name FROM found UNION ALL SELECT id, name FROM added
            """, [.text(PostgresArray.literal(names))]) { ids[$0.string("name") ?? ""] = $0.int64("id") }
        let missing = names.filter { ids[$0] == nil }
        if !missing.isEmpty {
            try query("SELECT id, name FROM \(table) WHERE name = ANY(CAST(? AS text[]))", [.text(PostgresArray.literal(missing))]) {
                ids[$0.string("name") ?? ""] = $0.int64("id")
            }
        }
        if let lost = names.first(where: { ids[$0] == nil }) {
            throw LeakStoreError.unavailable("interning \(lost) in \(table) returned no id")
        }
        return ids
    }

    /// Leak keys in one statement, as `intern(_:in:)` does names: the known ones read, the others
    /// inserted in the order given, each row (id, scenario, type, site) handed to `row`. A key
    /// another server added after the statement's snapshot comes back from neither: the caller
    /// reads it again (`WriteSession.intern(keys:)`).
    package func internKeys(_ keys: [(scenarioID: Int64, typeID: Int64, siteID: Int64?)],
                            row: (any SQLRow) throws -> Void) throws {
        guard !keys.isEmpty else { return }
        var columns = ["{", "{", "{"]
        for (index, key) in keys.enumerated() {
            let separator = index == 0 ? "" : ","
            for (column, value) in [SQLValue.integer(key.scenarioID), .integer(key.typeID), key.siteID.map(SQLValue.integer) ?? .null].enumerated() {
                columns[column] += separator
                PostgresArray.append(value, to: &columns[column])
            }
        }
        try query("""
            WITH wanted(scenario_id, type_id, site_id, position) AS (
                     SELECT * FROM unnest(CAST(? AS bigint[]), CAST(? AS bigint[]), CAST(? AS bigint[])) WITH ORDINALITY),
                 found AS (SELECT k.id, k.scenario_id, k.type_id, k.site_id FROM leak_keys k
                           JOIN wanted w ON w.scenario_id = k.scenario_id AND w.type_id = k.type_id),
                 added AS (INSERT INTO leak_keys (scenario_id, type_id, site_id)
                           SELECT w.scenario_id, w.type_id, w.site_id FROM wanted w
                           WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.scenario_id = w.scenario_id AND f.type_id = w.type_id)
                           ORDER BY w.position
                           ON CONFLICT (scenario_id, type_id) DO NOTHING RETURNING id, scenario_id, type_id, site_id)
            SELECT id, scenario_id, type_id, site_id FROM found UNION ALL SELECT id, scenario_id, type_id, site_id FROM added
            """, columns.map { .text($0 + "}") }, row: row)
    }

    /// The `unnest` form of `insert`, made on first use.
    private func arrayInsertSQL(_ insert: RowInsert) throws -> String {
        let oneRow = insert.oneRowSQL
        if let sql = arrayInserts[oneRow] { return sql }
        let described = PQdescribePrepared(handle, try prepare(oneRow).name)
        defer { PQclear(described) }
        try check(described, sql: oneRow)
        let oids = (0..<PQnparams(described)).map { String(PQparamtype(described, $0)) }
        var types: [String] = []
        try query("SELECT format_type(t, NULL) FROM unnest(CAST(? AS oid[])) WITH ORDINALITY AS u(t, n) ORDER BY n",
                  [.text("{" + oids.joined(separator: ",") + "}")]) { types.append($0.string(at: 0) ?? "text") }
        let arrays = types.enumerated().map { "$\($0.offset + 1)::\($0.element)[]" }.joined(separator: ", ")
        let sql = "INSERT INTO \(insert.into) SELECT * FROM unnest(\(arrays))" + (insert.suffix.isEmpty ? "" : " " + insert.suffix)
        arrayInserts[oneRow] = sql
        return sql
    }

    /// A statement prepared on this connection: its name, and where its result's columns are,
    /// by name, once a result of it has been read — a prepared statement's result columns are
    /// those it was prepared with, for as long as it lives (PostgreSQL refuses a changed result
    /// type), so it is their one owner, and they go with it (`reset`).
    private final class PreparedStatement {
        let name: String
        var columns: [String: Int32]?

        init(name: String) { self.name = name }
    }

    private func prepare(_ sql: String) throws -> PreparedStatement {
        if let statement = prepared[sql] { return statement }
        let statement = PreparedStatement(name: "lh\(prepared.count + 1)")
        let text = PostgresSQL.translate(sql)
        let result = PQprepare(handle, statement.name, text, 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        prepared[sql] = statement
        return statement
    }

    /// Calls `body` with the values as NUL-terminated text (NULL as a null pointer), alive for the call.
    private func withParameters(_ values: [SQLValue], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer?) throws -> OpaquePointer? {
        var owned: [UnsafeMutablePointer<CChar>?] = values.map { value in
            switch value {
            case .null: nil
            case let .integer(number): strdup(String(number))
            case let .real(number): strdup(number.description)
            case let .text(text): strdup(text)
            }
        }
        defer { for pointer in owned { free(pointer) } }
        return owned.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(buffer.count, 1)) { base in
                body(Int32(values.count), values.isEmpty ? nil : UnsafePointer(base))
            }
        }
    }

    private func check(_ result: OpaquePointer?, sql: String?) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return }
        let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) } ?? ""
        let message = (result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) } ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let connectionMessage = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
        throw PostgresError(sqlState: state, message: message.isEmpty ? connectionMessage : message, sql: sql,
                            connectionLost: !isConnected)
    }

    private func readRows(_ result: OpaquePointer?, of statement: PreparedStatement, _ body: (any SQLRow) throws -> Void) throws {
        guard let result else { return }
        let count = PQntuples(result)
        guard count > 0 else { return }
        let columns = statement.columns ?? PostgresRow.columns(of: result)
        statement.columns = columns
        var row = PostgresRow(result: result, index: 0, columns: columns)
        while row.index < count {
            try body(row)
            row.index += 1
        }
    }
}

/// A row of a text-format result.
struct PostgresRow: SQLRow {
    let result: OpaquePointer
    var index: Int32
    /// The result's columns by name (`columns(of:)`), read once for all its statement's results.
    let columns: [String: Int32]

    func isNull(at column: Int32) -> Bool { PQgetisnull(result, index, column) == 1 }

    func column(named name: String) -> Int32? { columns[name] }

    /// Each column's position by its name as the server names it (an unquoted name in lower
    /// case), the first where two share one — as SQLite's statements keep theirs
    /// (`SQLiteStatement.column(named:)`): a row read by name costs a dictionary probe a column,
    /// not libpq's `PQfnumber`, which copies and folds the name at every call.
    static func columns(of result: OpaquePointer) -> [String: Int32] {
        var columns = [String: Int32](minimumCapacity: Int(PQnfields(result)))
        for column in 0..<PQnfields(result) {
            guard let name = PQfname(result, column) else { continue }
            let key = String(cString: name)
            if columns[key] == nil { columns[key] = column }
        }
        return columns
    }

    func string(at column: Int32) -> String? {
        guard !isNull(at: column), let value = PQgetvalue(result, index, column) else { return nil }
        let count = Int(PQgetlength(result, index, column))
        return value.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    /// Integers as text; booleans (`t`/`f`) as 1 and 0, as SQLite gives them.
    func int64(at column: Int32) -> Int64 {
        guard let text = string(at: column) else { return 0 }
        if let value = Int64(text) { return value }
        switch text {
        case "t": return 1
        case "f": return 0
        default: return Double(text).map { Int64($0) } ?? 0
        }
    }

    func double(at column: Int32) -> Double {
        string(at: column).flatMap(Double.init) ?? 0
    }
}
