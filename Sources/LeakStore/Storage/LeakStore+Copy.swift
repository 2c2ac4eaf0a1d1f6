import Foundation

/// One table as `LeakStore.copy(into:)` moves it: its columns with their kinds, in key order.
struct CopiedTable: Sendable {
    enum Kind: Sendable { case integer, real, text }

    var name: String
    var columns: [(name: String, kind: Kind)]
    var orderBy: String
    /// Whether `id` is an identity column whose sequence must continue after the copied ids.
    var hasID: Bool { columns.first?.name == "id" }

    /// Every table of the schema, parents before children.
    static let all: [CopiedTable] = [
        CopiedTable(name: "projects", columns: [("id", .integer), ("name", .text), ("created_at", .text)], orderBy: "id"),
        CopiedTable(name: "tokens", columns: [("id", .integer), ("project_id", .integer), ("scope", .text),
                                             ("secret_hash", .text), ("created_at", .text), ("revoked_at", .text)], orderBy: "id"),
        CopiedTable(name: "commits", columns: [("id", .integer), ("project_id", .integer), ("sha", .text), ("branch", .text),
                                              ("first_seen", .text)], orderBy: "id"),
        CopiedTable(name: "commit_parents", columns: [("commit_id", .integer), ("position", .integer), ("parent_sha", .text),
                                                     ("parent_id", .integer)],
                    orderBy: "commit_id, position"),
        CopiedTable(name: "types", columns: [("id", .integer), ("name", .text)], orderBy: "id"),
        CopiedTable(name: "scenarios", columns: [("id", .integer), ("name", .text)], orderBy: "id"),
        CopiedTable(name: "runs", columns: [
            ("id", .integer), ("project_id", .integer), ("run_key", .text), ("content_hash", .text), ("commit_id", .integer),
            ("branch", .text), ("environment", .text), ("started_at", .text), ("received_at", .text), ("tool_name", .text),
            ("tool_version", .text), ("check_count", .integer), ("leaked_count", .integer), ("late_release_count", .integer),
            ("error_count", .integer), ("suspect", .integer),
        ], orderBy: "id"),
        CopiedTable(name: "environments", columns: [("id", .integer), ("name", .text)], orderBy: "id"),
        CopiedTable(name: "check_sites", columns: [("id", .integer), ("file", .text), ("line", .integer), ("lifecycle", .text)],
                    orderBy: "id"),
        CopiedTable(name: "checks", columns: [
            ("id", .integer), ("run_id", .integer), ("scenario_id", .integer), ("type_id", .integer), ("outcome", .text),
            ("waited_ms", .real), ("timeout_ms", .integer), ("site_id", .integer), ("fingerprint", .text),
            ("retain_path", .text), ("message", .text), ("source", .text), ("checked_at", .text), ("known_issue", .integer),
            ("before_pass", .integer), ("attempts", .integer), ("leaked_attempts", .integer),
        ], orderBy: "id"),
        CopiedTable(name: "leak_keys", columns: [("id", .integer), ("scenario_id", .integer), ("type_id", .integer),
                                                ("site_id", .integer)],
                    orderBy: "id"),
        CopiedTable(name: "leak_states", columns: [
            ("commit_id", .integer), ("environment_id", .integer), ("key_id", .integer),
            ("checked_count", .integer), ("leaked_count", .integer), ("late_release_count", .integer), ("error_count", .integer),
            ("passed_site_id", .integer), ("slowest_pass_us", .integer),
        ], orderBy: "commit_id, environment_id, key_id"),
        CopiedTable(name: "suppressions", columns: [
            ("id", .integer), ("project_id", .integer), ("type_pattern", .text), ("scenario_pattern", .text),
            ("fingerprint_pattern", .text), ("reason", .text), ("expires_at", .text), ("created_at", .text),
            ("created_by", .text),
        ], orderBy: "id"),
    ]

    func value(_ row: any SQLRow, _ column: Int) -> SQLValue {
        let index = Int32(column)
        if row.isNull(at: index) { return .null }
        return switch columns[column].kind {
        case .integer: .integer(row.int64(at: index))
        case .real: .real(row.double(at: index))
        case .text: .text(row.string(at: index))
        }
    }
}

/// Why a copy was refused or did not verify.
public struct DatabaseCopyError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension LeakStore {
    /// Copies this whole database — projects, tokens, commits, runs, checks, leak states,
    /// suppressions, with their ids — into `target`, which must be empty (freshly migrated), in
    /// one transaction of the target read from one snapshot of this store; then counts every
    /// table on both sides. Either engine to either engine.
    /// - Parameter progress: called after each table with its name and row count.
    /// - Returns: the rows per table, in copy order.
    /// - Throws: `DatabaseCopyError` when the target holds data or the counts differ.
    public func copy(into target: LeakStore, progress: (String, Int64) -> Void = { _, _ in }) throws -> [(table: String, rows: Int64)] {
        let targetRows = try target.read { db in try db.scalarInt("SELECT count(*) FROM projects") ?? 0 }
        guard targetRows == 0 else {
            throw DatabaseCopyError(description: "the target \(target.location) already holds \(targetRows) project(s); "
                + "migrate copies into an empty database only")
        }
        let copied = try read { source in
            try target.write { writer in
                let db = writer.connection
                var counts: [(String, Int64)] = []
                try db.bulkLoad(tablesWithIDs: CopiedTable.all.filter(\.hasID).map(\.name)) {
                    for table in CopiedTable.all {
                        if table.name == "leak_states" {
                            // Rows to blobs and blocks (`StateBlobs`), or arrays (`StateArrays`): the
                            // table is their reader.
                            var packer = StateBlobs.RowPacker(db: db)
                            try source.query("SELECT \(StateBlobs.stateColumns) FROM leak_states ORDER BY \(table.orderBy)") {
                                try packer.add($0)
                            }
                            try packer.finish()
                            counts.append((table.name, packer.rows))
                            progress(table.name, packer.rows)
                            continue
                        }
                        let insert = RowInsert(into: "\(table.name) (\(table.columns.map(\.name).joined(separator: ", ")))",
                                               columnCount: table.columns.count)
                        var batch: [[SQLValue]] = []
                        batch.reserveCapacity(StoreTuning.copyBatchRows)
                        var count: Int64 = 0
                        try source.query("SELECT \(table.columns.map(\.name).joined(separator: ", ")) FROM \(table.name) ORDER BY \(table.orderBy)") { row in
                            batch.append((0..<table.columns.count).map { table.value(row, $0) })
                            count += 1
                            if batch.count == StoreTuning.copyBatchRows {
                                try db.insert(insert, rows: batch)
                                batch.removeAll(keepingCapacity: true)
                            }
                        }
                        try db.insert(insert, rows: batch)
                        counts.append((table.name, count))
                        progress(table.name, count)
                    }
                }
                return counts
            }
        }
        let stored = try target.read { db in
            try CopiedTable.all.map { try db.scalarInt("SELECT count(*) FROM \($0.name)") ?? -1 }
        }
        for ((table, rows), found) in zip(copied, stored) where rows != found {
            throw DatabaseCopyError(description: "table \(table): copied \(rows) rows but the target holds \(found)")
        }
        return copied.map { (table: $0.0, rows: $0.1) }
    }
}
