import Foundation
@testable import LeakStore

/// A migrated database's schema as `docs/STORAGE.md` prints it, read from the engine's catalog:
/// per table (and view) its columns with their types, its keys and constraints, its indexes.
/// The document's blocks must equal this text (`StorageDocumentTests`), so the map cannot go
/// stale: a migration that changes the schema fails the test until the document says so.
enum SchemaMap {
    static func render(_ db: any SQLConnection, engine: TestEngine) throws -> String {
        switch engine {
        case .sqlite: try sqlite(db)
        case .postgres: try postgres(db)
        }
    }

    /// Whitespace runs made one space, so that a statement's line breaks in its migration do
    /// not matter.
    private static func squeezed(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    private static func sqlite(_ db: any SQLConnection) throws -> String {
        var objects: [(type: String, name: String, sql: String)] = []
        try db.query("""
            SELECT type, name, coalesce(sql, '') FROM sqlite_master
            WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name
            """) { objects.append(($0.string(at: 0) ?? "", $0.string(at: 1) ?? "", $0.string(at: 2) ?? "")) }
        // The eponymous virtual table the store registers on each of its connections.
        objects.append(("virtual table", "leak_states", ""))
        objects.sort { $0.name < $1.name }
        var text = ""
        for object in objects {
            let sql = squeezed(object.sql)
            let isVirtual = object.type == "virtual table" || sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE")
            var heading = (isVirtual ? "virtual table" : object.type) + " " + object.name
            if sql.uppercased().hasSuffix("WITHOUT ROWID") { heading += " WITHOUT ROWID" }
            text += heading + "\n"
            try db.query("SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid",
                         [.text(object.name)]) { row in
                var column = "  " + (row.string(at: 0) ?? "")
                if let type = row.string(at: 1), !type.isEmpty { column += " " + type }
                if row.int(at: 2) != 0 { column += " NOT NULL" }
                if let value = row.string(at: 3) { column += " DEFAULT " + value }
                if row.int(at: 5) != 0 { column += " HIDDEN" }
                text += column + "\n"
            }
            var key: [(position: Int, name: String)] = []
            try db.query("SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0", [.text(object.name)]) {
                key.append(($0.int(at: 1), $0.string(at: 0) ?? ""))
            }
            if !key.isEmpty { text += "  primary key (" + key.sorted { $0.position < $1.position }.map(\.name).joined(separator: ", ") + ")\n" }
            var indexes: [(name: String, unique: Bool, origin: String, partial: Bool)] = []
            try db.query("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?)", [.text(object.name)]) {
                indexes.append(($0.string(at: 0) ?? "", $0.int(at: 1) != 0, $0.string(at: 2) ?? "", $0.int(at: 3) != 0))
            }
            for index in indexes.sorted(by: { $0.name < $1.name }) where index.origin != "pk" {
                var columns: [String] = []
                try db.query("SELECT coalesce(name, '<expression>'), \"desc\" FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno",
                             [.text(index.name)]) { columns.append(($0.string(at: 0) ?? "") + ($0.int(at: 1) != 0 ? " DESC" : "")) }
                // An index a UNIQUE constraint made has no name of its own worth printing.
                var line = index.origin == "u" ? "  unique (" : "  \(index.unique ? "unique " : "")index \(index.name) ("
                line += columns.joined(separator: ", ") + ")"
                if index.partial, let sql = try db.scalarText("SELECT sql FROM sqlite_master WHERE name = ?", [.text(index.name)]),
                   let range = squeezed(sql).range(of: " WHERE ", options: .caseInsensitive) {
                    line += " WHERE " + squeezed(sql)[range.upperBound...]
                }
                text += line + "\n"
            }
            try db.query("SELECT \"table\", group_concat(\"from\", ', '), group_concat(\"to\", ', ') FROM pragma_foreign_key_list(?) GROUP BY id ORDER BY id",
                         [.text(object.name)]) { row in
                text += "  foreign key (\(row.string(at: 1) ?? "")) references \(row.string(at: 0) ?? "")(\(row.string(at: 2) ?? ""))\n"
            }
        }
        return text
    }

    private static func postgres(_ db: any SQLConnection) throws -> String {
        var objects: [(name: String, type: String)] = []
        try db.query("""
            SELECT table_name, CASE table_type WHEN 'VIEW' THEN 'view' ELSE 'table' END
            FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name
            """) { objects.append(($0.string(at: 0) ?? "", $0.string(at: 1) ?? "")) }
        var text = ""
        for object in objects {
            text += object.type + " " + object.name + "\n"
            try db.query("""
                SELECT column_name, CASE WHEN data_type = 'ARRAY' THEN substr(udt_name, 2) || '[]' ELSE data_type END,
                       is_nullable, coalesce(column_default, ''), is_identity, coalesce(identity_generation, '')
                FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?
                ORDER BY ordinal_position
                """, [.text(object.name)]) { row in
                var column = "  " + (row.string(at: 0) ?? "") + " " + (row.string(at: 1) ?? "")
                if row.string(at: 2) == "NO" { column += " NOT NULL" }
                if let value = row.string(at: 3), !value.isEmpty { column += " DEFAULT " + value }
                if row.string(at: 4) == "YES" { column += " GENERATED \(row.string(at: 5) ?? "") AS IDENTITY" }
                text += column + "\n"
            }
            try db.query("""
                SELECT pg_get_constraintdef(c.oid)
                FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
                WHERE n.nspname = current_schema() AND c.conrelid = ?::regclass AND c.contype IN ('p', 'u', 'f', 'c', 'x')
                ORDER BY CASE c.contype WHEN 'p' THEN 0 WHEN 'u' THEN 1 WHEN 'f' THEN 2 ELSE 3 END, 1
                """, [.text(object.name)]) { row in
                text += "  " + (row.string(at: 0) ?? "") + "\n"
            }
            // Indexes a constraint made are printed as the constraint, above.
            try db.query("""
                SELECT i.relname, pg_get_indexdef(i.oid)
                FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                WHERE x.indrelid = ?::regclass
                  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid)
                ORDER BY i.relname
                """, [.text(object.name)]) { row in
                let name = row.string(at: 0) ?? ""
                let definition = row.string(at: 1) ?? ""
                let unique = definition.hasPrefix("CREATE UNIQUE") ? "unique " : ""
                let using = definition.range(of: " USING ").map { String(definition[$0.upperBound...]) } ?? definition
                text += "  \(unique)index \(name) \(using)\n"
            }
        }
        return text
    }
}
