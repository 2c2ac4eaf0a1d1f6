/// One numbered schema change, compiled into the binary from `Migrations/NNNN_name.sql`.
///
/// The `.sql` files are the single source of the schema. SwiftPM embeds each file as bytes;
/// this list names them in order, and a test checks that every file in `Migrations/` is listed.
public struct Migration: Sendable {
    /// The number in the file name: `0001_initial.sql` is version 1.
    public let version: Int
    /// The rest of the file name: `initial`.
    public let name: String
    /// The script, run as one IMMEDIATE transaction together with its bookkeeping row: the
    /// part of the file above its `-- @conversion` line when it has one.
    public let sql: String
    /// A migration that moves data in batches (`-- @conversion` in its file): the store copies
    /// the rows over, a batch a transaction with its progress marker, resuming where a stopped run left off, then runs
    /// `finishingSQL` (the part of the file below the line) in one more transaction.
    let conversion: DataConversion?
    /// The script below the `-- @conversion` line; empty without one.
    let finishingSQL: String

    /// Every migration this build knows, oldest first.
    public static let all: [Migration] = [
        Migration(version: 1, name: "initial", bytes: PackageResources._001_initial_sql),
        Migration(version: 2, name: "regression_queries", bytes: PackageResources._002_regression_queries_sql),
        Migration(version: 3, name: "checks_outcome_without_in_list",
                  bytes: PackageResources._003_checks_outcome_without_in_list_sql),
        Migration(version: 4, name: "gate", bytes: PackageResources._004_gate_sql),
        Migration(version: 5, name: "suppression_author", bytes: PackageResources._005_suppression_author_sql),
        Migration(version: 6, name: "compact_storage", bytes: PackageResources._006_compact_storage_sql,
                  conversion: .compactStorage),
        Migration(version: 7, name: "leak_states_by_type", bytes: PackageResources._007_leak_states_by_type_sql),
        Migration(version: 8, name: "leak_keys", bytes: PackageResources._008_leak_keys_sql, conversion: .leakKeys),
        Migration(version: 9, name: "runs_by_commit_environment_covering",
                  bytes: PackageResources._009_runs_by_commit_environment_covering_sql),
        Migration(version: 10, name: "leak_states_telling", bytes: PackageResources._010_leak_states_telling_sql),
        Migration(version: 11, name: "leak_states_key_order", bytes: PackageResources._011_leak_states_key_order_sql,
                  conversion: .keyOrder),
        Migration(version: 12, name: "leak_states_leaking", bytes: PackageResources._012_leak_states_leaking_sql),
        Migration(version: 13, name: "commit_parent_ids", bytes: PackageResources._013_commit_parent_ids_sql),
        Migration(version: 14, name: "packed_key_states", bytes: PackageResources._014_packed_key_states_sql,
                  conversion: .packedKeyStates),
        Migration(version: 15, name: "key_state_blocks_by_last_commit",
                  bytes: PackageResources._015_key_state_blocks_by_last_commit_sql),
        Migration(version: 16, name: "check_attempts", bytes: PackageResources._016_check_attempts_sql),
    ]

    /// Every PostgreSQL migration this build knows, oldest first (`Migrations/postgres/`): the
    /// same schema concept, numbered on its own.
    public static let postgres: [Migration] = [
        Migration(version: 1, name: "pg_initial", bytes: PackageResources._001_pg_initial_sql),
        Migration(version: 2, name: "pg_compact_storage", bytes: PackageResources._002_pg_compact_storage_sql,
                  conversion: .compactStorage),
        Migration(version: 3, name: "pg_leak_states_by_type", bytes: PackageResources._003_pg_leak_states_by_type_sql),
        Migration(version: 4, name: "pg_leak_keys", bytes: PackageResources._004_pg_leak_keys_sql, conversion: .leakKeys),
        Migration(version: 5, name: "pg_runs_by_commit_environment_covering",
                  bytes: PackageResources._005_pg_runs_by_commit_environment_covering_sql),
        Migration(version: 6, name: "pg_leak_states_telling", bytes: PackageResources._006_pg_leak_states_telling_sql),
        Migration(version: 7, name: "pg_leak_states_leaking", bytes: PackageResources._007_pg_leak_states_leaking_sql),
        Migration(version: 8, name: "pg_commit_parent_ids", bytes: PackageResources._008_pg_commit_parent_ids_sql),
        Migration(version: 9, name: "pg_commit_order", bytes: PackageResources._009_pg_commit_order_sql),
        Migration(version: 10, name: "pg_leak_states_by_key_covering",
                  bytes: PackageResources._010_pg_leak_states_by_key_covering_sql),
        Migration(version: 11, name: "pg_leak_states_without_foreign_keys",
                  bytes: PackageResources._011_pg_leak_states_without_foreign_keys_sql),
        Migration(version: 12, name: "pg_packed_key_states", bytes: PackageResources._012_pg_packed_key_states_sql,
                  conversion: .packedKeyStates),
        Migration(version: 13, name: "pg_key_state_blocks_wide", bytes: PackageResources._013_pg_key_state_blocks_wide_sql),
        Migration(version: 14, name: "pg_check_attempts", bytes: PackageResources._014_pg_check_attempts_sql),
    ]

    /// The schema version this build writes.
    public static var latestVersion: Int { all.last?.version ?? 0 }

    init(version: Int, name: String, bytes: [UInt8], conversion: DataConversion? = nil) {
        self.version = version
        self.name = name
        let text = String(decoding: bytes, as: UTF8.self)
        if let marker = text.range(of: Self.conversionMarker) {
            sql = String(text[..<marker.lowerBound])
            finishingSQL = String(text[marker.upperBound...])
        } else {
            sql = text
            finishingSQL = ""
        }
        precondition((conversion != nil) == !finishingSQL.isEmpty, "\(name): a conversion needs its `@conversion` line")
        self.conversion = conversion
    }

    /// The line that splits a converting migration's file.
    static let conversionMarker = "-- @conversion\n"

    /// `0001_initial.sql`, as the file is named.
    public var fileName: String {
        let digits = String(version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name + ".sql"
    }
}
