/// PostgreSQL's bulk load (`leakhistory-server migrate` into PostgreSQL).
extension PostgresConnection {
    /// The keys and indexes set aside meanwhile (`dropKeysAndIndexes`), and the id sequences set
    /// past the copied ids, so that new rows continue after them.
    package func bulkLoad(tablesWithIDs: [String], _ body: () throws -> Void) throws {
        let restore = try dropKeysAndIndexes()
        try body()
        for table in tablesWithIDs {
            try run("""
                SELECT setval(pg_get_serial_sequence('\(table)', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM \(table)), false)
                """)
        }
        for statement in restore { try execute(statement) }
    }

    /// PostgreSQL checks keys and updates indexes row by row as rows arrive — most of a copy's
    /// time. The copy drops the schema's constraints (foreign keys first) and its other indexes;
    /// the statements returned add them back at the end, in the same transaction, where each
    /// index is built once and each key checked once over the whole table.
    private func dropKeysAndIndexes() throws -> [String] {
        var drops: [String] = [], indexes: [String] = [], constraints: [String] = []
        try query("""
            SELECT quote_ident(i.relname), pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
            WHERE i.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.contype IN ('p', 'u'))
            ORDER BY i.relname
            """) { row in
            drops.append("DROP INDEX \(row.string(at: 0) ?? "")")
            indexes.append(row.string(at: 1) ?? "")
        }
        try query("""
            SELECT conrelid::regclass::text, quote_ident(conname), pg_get_constraintdef(oid) FROM pg_constraint
            WHERE contype IN ('f', 'p', 'u') AND connamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            ORDER BY contype = 'f' DESC, conrelid, conname
            """) { row in
            let table = row.string(at: 0) ?? "", name = row.string(at: 1) ?? ""
            drops.append("ALTER TABLE \(table) DROP CONSTRAINT \(name)")
            constraints.append("ALTER TABLE \(table) ADD CONSTRAINT \(name) \(row.string(at: 2) ?? "")")
        }
        for drop in drops { try execute(drop) }
        return indexes + constraints.reversed()
    }
}
