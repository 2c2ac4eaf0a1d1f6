import Foundation
import LeakReport

/// How far the upgrade of a database to a new layout has come: told after every batch, and
/// once more when the new layout is in place.
public struct UpgradeProgress: Sendable, CustomStringConvertible {
    /// Called with each step; it may throw to stop the upgrade (the batches done so far stay,
    /// and the next start continues after them).
    public typealias Observer = @Sendable (UpgradeProgress) throws -> Void

    /// The migration, e.g. `compact_storage`.
    public var migration: String
    /// What the progress counts: `runs` (compact storage), `commits` (leak keys), `key states`
    /// (key order).
    public var unit: String
    /// How many of them are copied, counting those a stopped upgrade copied before.
    public var done: Int
    public var total: Int
    /// Old rows copied by this start (checks, or key states; a resumed upgrade counts from where it resumed).
    public var rowsCopied: Int64
    /// True once the new layout has replaced the old one.
    public var finished: Bool

    /// `upgrading to compact_storage: 1200 of 3216 runs (37%)`.
    public var description: String {
        if finished { return "upgraded to \(migration): \(total) \(unit)" }
        let percent = total == 0 ? 100 : done * 100 / total
        return "upgrading to \(migration): \(done) of \(total) \(unit) (\(percent)%)"
    }
}

/// The Swift-driven part of a migration that moves data (`Migration.conversion`). Batches are
/// committed one by one, each together with the progress marker that says where the next
/// batch starts, so an upgrade that was killed continues where it stopped, and a batch is never
/// copied twice.
///
/// The marker is a one-row table the migration's first part creates: the id of the last row of
/// `unit` copied, and `finished`. The conversion is done when `finished` is set, or when the
/// migration's last part dropped the table (a layout that keeps no marker).
struct DataConversion: Sendable {
    /// The marker table, e.g. `compaction_progress`, and its column of the last id copied.
    let marker: String
    let markerColumn: String
    /// The table whose rows the batches go through in id order (`runs`, `commits`, `leak_keys`).
    let unit: String
    /// What the progress counts: the rows of `unit` gone through, or (when their sizes are far
    /// apart: a 100,000-check run's keys have a state each, a key of every run has thousands)
    /// the rows copied.
    let measure: Measure

    enum Measure: Sendable {
        case units
        /// The rows of `source` copied into `target`, called `name` in the progress.
        case rows(name: String, source: String, target: String)
    }

    init(marker: String, markerColumn: String, unit: String, measure: Measure = .units,
         copyBatch: @escaping @Sendable (_ db: any SQLConnection, _ session: WriteSession, _ afterID: Int64, _ batchRows: Int) throws
            -> (lastID: Int64, rows: Int64)?) {
        self.marker = marker
        self.markerColumn = markerColumn
        self.unit = unit
        self.measure = measure
        self.copyBatch = copyBatch
    }

    /// Copies one batch after `afterID` (at least one row of `unit`, about `batchRows` old rows);
    /// returns the last id copied and the old rows copied, or nil when none was left.
    let copyBatch: @Sendable (_ db: any SQLConnection, _ session: WriteSession, _ afterID: Int64, _ batchRows: Int) throws
        -> (lastID: Int64, rows: Int64)?

    /// Continues (or starts) the conversion of `migration`; nothing when it is done already.
    func resume(_ db: any SQLConnection, migration: Migration, batchRows: Int, progress: UpgradeProgress.Observer?,
                inTransaction: (() throws -> Bool) throws -> Bool) throws {
        guard try db.tableExists(marker) else { return }
        var finished = false
        var lastID: Int64 = 0
        try db.query("SELECT \(markerColumn), finished FROM \(marker)") { row in
            lastID = row.int64(at: 0)
            finished = row.int(at: 1) != 0
        }
        guard !finished else { return }
        let session = WriteSession(db)
        let count = "SELECT count(*) FROM \(unit) WHERE id <= ?"
        var step: UpgradeProgress
        switch measure {
        case .units:
            step = UpgradeProgress(migration: migration.name, unit: unit, done: Int(try db.scalarInt(count, [.integer(lastID)]) ?? 0),
                                   total: Int(try db.scalarInt("SELECT count(*) FROM \(unit)") ?? 0), rowsCopied: 0, finished: false)
        case let .rows(name, source, target):
            step = UpgradeProgress(migration: migration.name, unit: name, done: Int(try db.scalarInt("SELECT count(*) FROM \(target)") ?? 0),
                                   total: Int(try db.scalarInt("SELECT count(*) FROM \(source)") ?? 0), rowsCopied: 0, finished: false)
        }
        while try inTransaction({ try session.transaction { session in
            // Read inside the transaction: the marker moves with the batch it describes.
            let after = try db.scalarInt("SELECT \(markerColumn) FROM \(marker)") ?? 0
            guard let batch = try copyBatch(db, session, after, batchRows) else { return false }
            try db.run("UPDATE \(marker) SET \(markerColumn) = ?", [.integer(batch.lastID)])
            lastID = batch.lastID
            step.rowsCopied += batch.rows
            if case .rows = measure { step.done += Int(batch.rows) }
            return true
        } }) {
            if case .units = measure { step.done = Int(try db.scalarInt(count, [.integer(lastID)]) ?? 0) }
            try progress?(step)
        }
        _ = try inTransaction {
            try db.execute(migration.finishingSQL)
            return true
        }
        step.done = step.total
        step.finished = true
        try progress?(step)
    }
}

extension DataConversion {
    /// Migration 6 (PostgreSQL 2): every check row of the old layout into the compact one
    /// (`CompactCheckWriter`), run by run in id order, each run's checks in id order, so that the
    /// result is what ingesting the same uploads into the compact layout stores.
    static let compactStorage = DataConversion(marker: "compaction_progress", markerColumn: "last_run_id", unit: "runs") {
        db, session, afterRunID, batchChecks in
        var runs: [(id: Int64, commitID: Int64, environment: String, suspect: Bool, checks: Int64)] = []
        var checks: Int64 = 0
        var full = false
        try db.query("""
            SELECT id, commit_id, environment, suspect, check_count FROM runs WHERE id > ? ORDER BY id LIMIT 1000
            """, [.integer(afterRunID)]) { row in
            // Whole runs in id order: the first that does not fit ends the batch.
            full = full || (!runs.isEmpty && checks + row.int64(at: 4) > Int64(batchChecks))
            guard !full else { return }
            runs.append((row.int64(at: 0), row.int64(at: 1), row.string(at: 2) ?? "", row.int(at: 3) != 0, row.int64(at: 4)))
            checks += row.int64(at: 4)
        }
        guard let last = runs.last else { return nil }
        var copied: Int64 = 0
        for run in runs {
            var incoming: [IncomingCheck] = []
            try db.query("""
                SELECT scenario_id, type_id, outcome, waited_ms, timeout_ms, file, line, lifecycle, fingerprint, retain_path,
                       message, source, checked_at, known_issue
                FROM checks WHERE run_id = ? ORDER BY id
                """, [.integer(run.id)]) { row in
                incoming.append(IncomingCheck(
                    scenarioID: row.int64(at: 0), typeID: row.int64(at: 1),
                    outcome: CheckOutcome(rawValue: row.string(at: 2) ?? "") ?? .error, waitedMs: row.double(at: 3),
                    timeoutMs: row.int64(at: 4), file: row.string(at: 5) ?? "", line: row.int64(at: 6),
                    lifecycle: row.string(at: 7) ?? "", fingerprint: row.string(at: 8), retainPath: row.string(at: 9),
                    message: row.string(at: 10), source: row.string(at: 11), checkedAt: row.string(at: 12) ?? "",
                    knownIssue: row.int(at: 13) == 1))
            }
            try CompactCheckWriter.converting.store(incoming, runID: run.id, commitID: run.commitID, environment: run.environment,
                                                    suspect: run.suspect, writer: session)
            copied += Int64(incoming.count)
        }
        return (last.id, copied)
    }
}

extension DataConversion {
    /// Migration 8 (PostgreSQL 4): every key state into the keyed table, whole commits in id
    /// order, each batch's states in primary key order (key ids follow scenario and type, so the
    /// old order is the new one): the copy appends, and the table ends as the one set-based copy
    /// of the migration's earlier text left it.
    static let leakKeys = DataConversion(marker: "leak_keys_progress", markerColumn: "last_commit_id", unit: "commits") {
        db, _, afterCommitID, batchStates in
        // The batch ends with the commit of its `batchStates`-th state, or with the last commit.
        let after = SQLValue.integer(afterCommitID)
        guard let last = try db.scalarInt("SELECT commit_id FROM leak_states WHERE commit_id > ? ORDER BY commit_id LIMIT 1 OFFSET ?",
                                          [after, .integer(Int64(max(0, batchStates - 1)))])
            ?? db.scalarInt("SELECT max(commit_id) FROM leak_states WHERE commit_id > ?", [after])
        else { return nil }
        let range: [SQLValue] = [after, .integer(last)]
        let states = try db.scalarInt("SELECT count(*) FROM leak_states WHERE commit_id > ?1 AND commit_id <= ?2", range) ?? 0
        try db.run("""
            INSERT INTO leak_states_keyed (commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count,
                                           error_count, passed_site_id, slowest_pass_us)
            SELECT ls.commit_id, ls.environment_id, k.id, ls.checked_count, ls.leaked_count, ls.late_release_count,
                   ls.error_count, CASE WHEN ls.passed_site_id = k.site_id THEN NULL ELSE ls.passed_site_id END, ls.slowest_pass_us
            FROM leak_states ls CROSS JOIN leak_keys k
            WHERE k.scenario_id = ls.scenario_id AND k.type_id = ls.type_id AND ls.commit_id > ?1 AND ls.commit_id <= ?2
            ORDER BY ls.commit_id, ls.environment_id, k.id
            """, range)
        return (last, states)
    }
}

extension DataConversion {
    /// Migration 11 (SQLite only): every key state into the key-ordered table, whole keys in id
    /// order, each batch's states in the new primary key's order: the copy appends, read along
    /// the old index by key.
    static let keyOrder = DataConversion(
        marker: "key_order_progress", markerColumn: "last_key_id", unit: "leak_keys",
        measure: .rows(name: "key states", source: "leak_states", target: "leak_states_key_order")
    ) { db, _, afterKeyID, batchStates in
        // The batch ends with the key of its `batchStates`-th state, or with the last key.
        let after = SQLValue.integer(afterKeyID)
        guard let last = try db.scalarInt("""
                SELECT key_id FROM leak_states INDEXED BY leak_states_by_key WHERE key_id > ? ORDER BY key_id LIMIT 1 OFFSET ?
                """, [after, .integer(Int64(max(0, batchStates - 1)))])
            ?? db.scalarInt("SELECT max(key_id) FROM leak_states INDEXED BY leak_states_by_key WHERE key_id > ?", [after])
        else { return nil }
        let range: [SQLValue] = [after, .integer(last)]
        let states = try db.scalarInt("""
            SELECT count(*) FROM leak_states INDEXED BY leak_states_by_key WHERE key_id > ?1 AND key_id <= ?2
            """, range) ?? 0
        try db.run("""
            INSERT INTO leak_states_key_order (commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count,
                                               error_count, passed_site_id, slowest_pass_us)
            SELECT commit_id, environment_id, key_id, checked_count, leaked_count, late_release_count, error_count,
                   passed_site_id, slowest_pass_us
            FROM leak_states INDEXED BY leak_states_by_key WHERE key_id > ?1 AND key_id <= ?2
            ORDER BY key_id, environment_id, commit_id
            """, range)
        return (last, states)
    }
}

extension DataConversion {
    /// Migration 14 (PostgreSQL 12): every key state packed (`StateBlobs`; on PostgreSQL
    /// `StateArrays`), whole commits in id order read along the old index by commit: a blob (a
    /// row of arrays) a commit and environment (the old rows are one a key, so each holds its
    /// commit's merged states as they were), then the batch's settled into blocks by key, in the
    /// same transaction.
    static let packedKeyStates = DataConversion(marker: "packing_progress", markerColumn: "last_commit_id", unit: "commits") {
        db, _, afterCommitID, batchStates in
        // The batch ends with the commit of its `batchStates`-th state, or with the last commit.
        let after = SQLValue.integer(afterCommitID)
        guard let last = try db.scalarInt("""
                SELECT commit_id FROM leak_states INDEXED BY leak_states_by_commit WHERE commit_id > ?
                ORDER BY commit_id LIMIT 1 OFFSET ?
                """, [after, .integer(Int64(max(0, batchStates - 1)))])
            ?? db.scalarInt("SELECT max(commit_id) FROM leak_states INDEXED BY leak_states_by_commit WHERE commit_id > ?", [after])
        else { return nil }
        var packer = StateBlobs.RowPacker(db: db)
        try db.query("""
            SELECT \(StateBlobs.stateColumns)
            FROM leak_states INDEXED BY leak_states_by_commit WHERE commit_id > ?1 AND commit_id <= ?2
            ORDER BY commit_id, environment_id, key_id
            """, [after, .integer(last)]) { try packer.add($0) }
        try packer.finish()
        let copied = packer.rows
        return (last, copied)
    }
}
