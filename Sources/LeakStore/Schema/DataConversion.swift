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
    public var runsDone: Int
    public var runsTotal: Int
    /// Old check rows copied by this start (a resumed upgrade counts from where it resumed).
    public var checksCopied: Int64
    /// True once the new layout has replaced the old one.
    public var finished: Bool

    /// `upgrading to compact_storage: 1,200 of 3,216 runs (37%)`.
    public var description: String {
        if finished { return "upgraded to \(migration): \(runsTotal) runs" }
        let percent = runsTotal == 0 ? 100 : runsDone * 100 / runsTotal
        return "upgrading to \(migration): \(runsDone) of \(runsTotal) runs (\(percent)%)"
    }
}

/// The Swift-driven part of a migration that moves data (`Migration.conversion`). Batches are
/// committed one by one, each together with the progress marker that says where the next
/// batch starts, so an upgrade that was killed continues where it stopped, and a batch is never
/// copied twice.
struct DataConversion: Sendable {
    /// Roughly how many old checks a batch copies (whole runs).
    static let defaultBatchChecks = 50_000

    /// Copies one batch of runs after `afterRunID` (at least one run, at most about `batchChecks`
    /// checks); returns the last run copied and the checks copied, or nil when none was left.
    let copyBatch: @Sendable (_ db: any SQLConnection, _ session: WriteSession, _ afterRunID: Int64, _ batchChecks: Int) throws
        -> (lastRunID: Int64, runs: Int, checks: Int64)?

    /// Continues (or starts) the conversion of `migration`; nothing when it is done already.
    func resume(_ db: any SQLConnection, migration: Migration, batchChecks: Int, progress: UpgradeProgress.Observer?,
                inTransaction: (() throws -> Bool) throws -> Bool) throws {
        var marker: (lastRunID: Int64, finished: Bool) = (0, false)
        try db.query("SELECT last_run_id, finished FROM compaction_progress") { row in
            marker = (row.int64(at: 0), row.int(at: 1) != 0)
        }
        guard !marker.finished else { return }
        let total = Int(try db.scalarInt("SELECT count(*) FROM runs") ?? 0)
        var done = Int(try db.scalarInt("SELECT count(*) FROM runs WHERE id <= ?", [.integer(marker.lastRunID)]) ?? 0)
        var copied: Int64 = 0
        let session = WriteSession(db)
        var step = UpgradeProgress(migration: migration.name, runsDone: done, runsTotal: total, checksCopied: 0, finished: false)
        while try inTransaction({ try session.transaction { session in
            // Read inside the transaction: the marker moves with the batch it describes.
            let after = try db.scalarInt("SELECT last_run_id FROM compaction_progress") ?? 0
            guard let batch = try copyBatch(db, session, after, batchChecks) else { return false }
            try db.run("UPDATE compaction_progress SET last_run_id = ?", [.integer(batch.lastRunID)])
            done += batch.runs
            copied += batch.checks
            return true
        } }) {
            step.runsDone = done
            step.checksCopied = copied
            try progress?(step)
        }
        _ = try inTransaction {
            try db.execute(migration.finishingSQL)
            return true
        }
        step.runsDone = done
        step.finished = true
        try progress?(step)
    }
}

extension DataConversion {
    /// Migration 6 (PostgreSQL 2): every check row of the old layout into the compact one
    /// (`CompactCheckWriter`), run by run in id order, each run's checks in id order, so that the
    /// result is what ingesting the same uploads into the compact layout stores.
    static let compactStorage = DataConversion { db, session, afterRunID, batchChecks in
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
        return (last.id, runs.count, copied)
    }
}
