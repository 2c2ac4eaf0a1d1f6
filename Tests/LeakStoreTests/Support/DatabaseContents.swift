import Foundation
@testable import LeakStore

/// Everything a database holds, as lines to compare: its schema as the engine's catalog tells it
/// (SQLite: `sqlite_master`'s text of every table and index; PostgreSQL: columns, constraints,
/// indexes and identity sequences), then every row of every table in column order. Page numbers,
/// object ids and the schema name are left out, and so is when a migration was applied.
enum DatabaseContents {
    static func lines(_ db: any SQLConnection, engine: TestEngine) throws -> [String] {
        var lines: [String] = []
        var columns: [(table: String, column: String)] = []
        switch engine {
        case .sqlite:
            try db.query("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name") { row in
                lines.append((0..<4).map { row.string(at: $0) ?? "" }.joined(separator: " | "))
            }
            var tables: [String] = []
            try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { tables.append($0.string(at: 0) ?? "") }
            // Packed key states are compared as the rows they stand for: how they were packed
            // (which blob, which settling) follows how they arrived, not what they hold.
            if tables.contains("state_blobs") {
                tables.removeAll { $0 == "state_blobs" || $0 == "key_state_blocks" }
                tables.append("leak_states")
            }
            for table in tables {
                try db.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
                    columns.append((table, $0.string(at: 0) ?? ""))
                }
            }
        case .postgres:
            let schema = try db.scalarText("SELECT current_schema()") ?? ""
            let catalog: [(sql: String, columns: Int32)] = [
                ("""
                SELECT table_name, column_name, data_type, is_nullable, coalesce(column_default, ''), is_identity,
                       coalesce(identity_generation, '')
                FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
                """, 7),
                ("""
                SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
                FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                WHERE n.nspname = current_schema() ORDER BY 1, 2
                """, 3),
                ("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1, 2", 3),
                ("""
                SELECT sequencename, data_type::text, coalesce(last_value::text, 'unused')
                FROM pg_sequences WHERE schemaname = current_schema() ORDER BY 1
                """, 3),
            ]
            for (sql, width) in catalog {
                try db.query(sql) { row in
                    lines.append((0..<width).map { row.string(at: $0) ?? "" }.joined(separator: " | ")
                        .replacingOccurrences(of: schema + ".", with: ""))
                }
            }
            try db.query("""
                SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()
                ORDER BY table_name, ordinal_position
                """) { columns.append(($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")) }
        }
        // PostgreSQL's packed states likewise, as the view `leak_states` shows them.
        if engine == .postgres {
            columns.removeAll { ["state_arrays", "key_state_blocks", "unsettled_key_states"].contains($0.table) }
        }
        let byTable = Dictionary(grouping: columns, by: \.table)
        for table in byTable.keys.sorted() {
            let names = (byTable[table] ?? []).map(\.column).filter { !(table == "schema_migrations" && $0 == "applied_at") }
            let order = (1...names.count).map(String.init).joined(separator: ", ")
            try db.query("SELECT \(names.joined(separator: ", ")) FROM \(table) ORDER BY \(order)") { row in
                lines.append(table + ": " + (0..<Int32(names.count)).map { row.isNull(at: $0) ? "NULL" : row.string(at: $0) ?? "" }
                    .joined(separator: " | "))
            }
        }
        return lines
    }

    /// The first line where two databases differ, nil when they hold the same.
    static func firstDifference(_ left: [String], _ right: [String]) -> String? {
        for (index, (one, other)) in zip(left, right).enumerated() where one != other {
            return "line \(index + 1): \(one)\n  against: \(other)"
        }
        return left.count == right.count ? nil : "\(left.count) lines against \(right.count)"
    }
}
