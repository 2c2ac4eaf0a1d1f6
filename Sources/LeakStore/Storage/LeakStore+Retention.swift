import Foundation
import LeakReport

/// What one batch of retention did.
public struct RetentionBatch: Sendable, Equatable {
    /// Runs whose full records were dropped (or, for suspect runs, stripped).
    public var runs: Int
    /// Check records deleted, and those of suspect runs whose retain path and message were cleared.
    public var deleted: Int
    public var stripped: Int
    /// The newest run the batch looked at: the next batch continues after it. Nil when no run
    /// older than the cutoff was left to do.
    public var lastRunID: Int64?
}

extension LeakStore {
    /// Drops the full records of runs received before `cutoff`, a batch of at most `runs` runs
    /// after `afterRunID` in one short write transaction, so that uploads wait at most one batch.
    ///
    /// What stays: every run with its counts, and every key's state at every commit
    /// (`leak_states`), which diffs, flaky windows, `firstSeen`, trends, types and scenario
    /// history read. What goes: the per-check rows — the file and line of each leak, its retain
    /// path and message, and the fingerprints a trend point lists — so those commits' pages and
    /// entries show the key's state without its details. A suspect run keeps its rows (they are
    /// its only counts) without retain paths and messages.
    /// - Returns: what the batch did; `lastRunID` is nil once nothing is left.
    public func dropDetails(receivedBefore cutoff: Date, runs batch: Int, afterRunID: Int64 = 0) throws -> RetentionBatch {
        let before = ReportTimestamp.string(from: cutoff)
        var candidates: [(id: Int64, suspect: Bool)] = []
        try read { db in
            try db.query(sql: """
                SELECT r.id, r.suspect FROM runs r
                WHERE r.id > \(afterRunID) AND r.received_at < \(before) AND \(raw: PendingUpload.isPublished("r"))
                  AND EXISTS (SELECT 1 FROM checks k WHERE k.run_id = r.id
                              AND (r.suspect = 0 OR k.retain_path IS NOT NULL OR k.message IS NOT NULL))
                ORDER BY r.id LIMIT \(max(batch, 1))
                """) { row in
                candidates.append((row.int64("id"), row.int("suspect") != 0))
            }
        }
        guard let last = candidates.last else { return RetentionBatch(runs: 0, deleted: 0, stripped: 0, lastRunID: nil) }
        return try write { writer in
            let db = writer.connection
            var result = RetentionBatch(runs: candidates.count, deleted: 0, stripped: 0, lastRunID: last.id)
            for run in candidates {
                if run.suspect {
                    result.stripped += Int(try db.scalarInt(sql: """
                        SELECT count(*) FROM checks WHERE run_id = \(run.id) AND (retain_path IS NOT NULL OR message IS NOT NULL)
                        """) ?? 0)
                    try db.run(sql: """
                        UPDATE checks SET retain_path = NULL, message = NULL
                        WHERE run_id = \(run.id) AND (retain_path IS NOT NULL OR message IS NOT NULL)
                        """)
                } else {
                    result.deleted += Int(try db.scalarInt(sql: "SELECT count(*) FROM checks WHERE run_id = \(run.id)") ?? 0)
                    try db.run(sql: "DELETE FROM checks WHERE run_id = \(run.id)")
                }
            }
            return result
        }
    }
}
