import Foundation
import LeakReport
import LeakStore

/// `leakhistory-bench storage`: bytes on disk per passing check and the upgrade in place, on a
/// history shaped like a real project's (`SyntheticHistory`: merges and pull-request branches,
/// ~310 checks a run over 310 keys, re-runs, partial, crashed and broken-harness runs, errored
/// checks, intermittent keys). The same runs are stored in the layout before compact storage (a
/// row per check, 1M checks), in the compact layout (1M, and 10M), and the 1M old database is
/// upgraded in place, timed: the whole upgrade, and migrations 7 and 8 (leak keys) of it in
/// batches beside a copy of the same database whose conversions take the largest batches (one
/// batch of key states: the set-based copy migration 8 was). `LEAKHISTORY_BENCH_STORAGE_CHECKS=a,b`
/// sets the two sizes.
enum StorageBenchmark {
    struct Shape {
        var legacyChecks: Int
        var compactChecks: Int
        static let full = Shape(legacyChecks: 1_000_000, compactChecks: 10_000_000)
        static let quick = Shape(legacyChecks: 20_000, compactChecks: 60_000)
    }

    static let target = 40.0

    static func run(quick: Bool) throws -> BenchmarkTable {
        var shape = quick ? Shape.quick : Shape.full
        if let sizes = ProcessInfo.processInfo.environment["LEAKHISTORY_BENCH_STORAGE_CHECKS"]?.split(separator: ",").compactMap({ Int($0) }),
           sizes.count == 2 {
            shape = Shape(legacyChecks: sizes[0], compactChecks: sizes[1])
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-bench-storage-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // ~1.35 builds a main commit (pull-request commits, re-runs), ~300 checks each.
        let history = SyntheticHistory(options: .init(seed: 15, mainCommits: max(20, shape.compactChecks / 390), keys: 310))
        let runs = records(history)
        let total = runs.reduce(0) { $0 + $1.checks.count }
        let legacyRuns = prefix(runs, checks: shape.legacyChecks)

        // Before: a row per check.
        let legacyPath = directory.appendingPathComponent("legacy.sqlite").path
        let legacy = try LegacyLayoutWriter.sqlite(path: legacyPath, project: "bench")
        try legacy.write(legacyRuns)
        let legacyBytes = try fileSize(legacyPath)

        // After: the same runs in the compact layout, through the store's ingest.
        let smallPath = directory.appendingPathComponent("compact-1m.sqlite").path
        let small = try ingest(legacyRuns, path: smallPath)
        // The old database upgraded in place, and a copy of it in the largest batches.
        let oneBatchPath = directory.appendingPathComponent("legacy-one-batch.sqlite").path
        try copyDatabase(legacyPath, to: oneBatchPath)
        let (upgraded, upgrade) = try upgradeInPlace(legacyPath, options: StoreOptions())
        let (oneBatchStore, oneBatch) = try upgradeInPlace(oneBatchPath, options: StoreOptions(upgradeBatchChecks: Int.max))
        let (batched, whole) = (try keyStatesDigest(upgraded), try keyStatesDigest(oneBatchStore))
        guard batched == whole else {
            throw BenchFailure("the key states upgraded in batches (\(batched)) are not those of one batch (\(whole))")
        }
        let upgradedAnswer = try upgraded.read { try $0.scalarInt("SELECT sum(checked_count) FROM leak_states") ?? 0 }
        let smallAnswer = try small.store.read { try $0.scalarInt("SELECT sum(checked_count) FROM leak_states") ?? 0 }
        guard upgradedAnswer == smallAnswer else {
            throw BenchFailure("the upgraded database counts \(upgradedAnswer) checks, a fresh ingest \(smallAnswer)")
        }
        // 10M: the whole history.
        let large = try ingest(runs, path: directory.appendingPathComponent("compact-10m.sqlite").path)

        let legacyPassing = passing(legacyRuns)
        let largePassing = passing(runs)
        var table = BenchmarkTable(title: "storage — SyntheticHistory (seed 15, \(history.commits.count) commits, \(runs.count) runs, "
            + "310 keys, ~\(total / max(runs.count, 1)) checks a run); bytes on disk (after a WAL checkpoint) per passing check")
        let before = Double(legacyBytes) / Double(legacyPassing), after1M = Double(small.bytes) / Double(legacyPassing)
        let after10M = Double(large.bytes) / Double(largePassing)
        table.rows.append(.init(
            figure: "bytes per passing check, \(millions(legacyRuns)) checks", value: String(format: "%.1f B", after1M),
            baseline: String(format: "%.1f B a row per check", before), ratio: String(format: "%.0f%%", after1M / before * 100),
            target: "", met: nil))
        table.rows.append(.init(
            figure: "bytes per passing check, \(millions(runs)) checks", value: String(format: "%.1f B", after10M),
            baseline: String(format: "%.0f MB in all", Double(large.bytes) / 1e6), ratio: "",
            target: "≤ \(Int(target)) B", met: after10M <= target))
        table.rows.append(.init(
            figure: "ingest (store, no HTTP), \(millions(runs)) checks", value: "\(Int(Double(total) / large.seconds)) checks/s",
            baseline: "\(Int(Double(legacyRuns.reduce(0) { $0 + $1.checks.count }) / legacy.seconds)) checks/s row-per-check raw inserts",
            ratio: "", target: "", met: nil))
        table.rows.append(.init(
            figure: "upgrade in place, \(millions(legacyRuns)) checks", value: String(format: "%.1f s", upgrade.seconds),
            baseline: String(format: "%.1f s ingesting the same runs", small.seconds), ratio: "", target: "", met: nil))
        table.rows.append(.init(
            figure: "of it migrations 7 and 8 (leak keys), \(upgrade.keyBatches) batch\(upgrade.keyBatches == 1 ? "" : "es")",
            value: String(format: "%.1f s", upgrade.keysSeconds),
            baseline: String(format: "%.1f s in one batch (set-based)", oneBatch.keysSeconds),
            ratio: String(format: "%.2f×", upgrade.keysSeconds / oneBatch.keysSeconds), target: "", met: nil))
        return table
    }

    /// Every run of every build, in the order CI ran them.
    static func records(_ history: SyntheticHistory) -> [RunRecord] {
        var records: [RunRecord] = []
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        for (buildIndex, build) in history.builds.enumerated() {
            let commit = history.commits[build.commit]
            for (attempt, run) in build.runs.enumerated() {
                let at = start.addingTimeInterval(Double(records.count) * 60)
                var checks = run.checks(history.keys)
                // Waits as a real clock measures them: fractions of a millisecond.
                for index in checks.indices where checks[index].outcome == .deallocated {
                    checks[index].waitedMs = Double((index * 7_919 + buildIndex) % 900 + 20) / 1_000
                    checks[index].timestamp = at
                }
                records.append(RunRecord(
                    project: "bench", commit: QueriesBenchmark.commitSHA(build.commit), branch: commit.branch,
                    parents: commit.parents.map(QueriesBenchmark.commitSHA), environment: "linux-swift6.3",
                    runKey: "build-\(buildIndex)-\(attempt)", startedAt: at, checks: checks))
            }
        }
        return records
    }

    static func prefix(_ runs: [RunRecord], checks: Int) -> [RunRecord] {
        var count = 0
        return Array(runs.prefix { run in
            defer { count += run.checks.count }
            return count < checks
        })
    }

    static func passing(_ runs: [RunRecord]) -> Int {
        runs.reduce(0) { $0 + $1.checks.filter { $0.outcome == .deallocated }.count }
    }

    static func millions(_ runs: [RunRecord]) -> String {
        let checks = runs.reduce(0) { $0 + $1.checks.count }
        return checks >= 1_000_000 ? String(format: "%.1fM", Double(checks) / 1e6) : "\(checks)"
    }

    static func ingest(_ runs: [RunRecord], path: String) throws -> (store: LeakStore, bytes: Int64, seconds: Double) {
        let store = try LeakStore(path: path)
        _ = try store.createProject("bench")
        let start = ContinuousClock.now
        for run in runs { _ = try store.ingest(run) }
        let seconds = (ContinuousClock.now - start).nanoseconds / 1e9
        try store.checkpoint()
        return (store, store.sizeOnDisk() ?? 0, seconds)
    }

    /// The whole upgrade's time, and the time from migration 6's last step to migration 8's (migration 7
    /// builds one index between them), with the batches of key states migration 8 committed.
    static func upgradeInPlace(_ path: String, options: StoreOptions) throws
        -> (store: LeakStore, (seconds: Double, keysSeconds: Double, keyBatches: Int)) {
        let compacted = Locked<ContinuousClock.Instant?>(nil)
        let keyBatches = Locked(0)
        let start = ContinuousClock.now
        let store = try LeakStore(path: path, options: options) { step in
            FileHandle.standardError.write(Data("  \(step)\n".utf8))
            if step.unit == "runs", step.finished { compacted.withLock { $0 = .now } }
            if step.unit == "commits", !step.finished { keyBatches.withLock { $0 += 1 } }
        }
        let end = ContinuousClock.now
        return (store, ((end - start).nanoseconds / 1e9, (end - (compacted.value ?? start)).nanoseconds / 1e9, keyBatches.value))
    }

    /// Sums over every key state and key that differ when any value does in any row.
    static func keyStatesDigest(_ store: LeakStore) throws -> [Int64] {
        try store.read { db in
            var digest: [Int64] = []
            try db.query("""
                SELECT count(*), sum(commit_id * 1000003 + environment_id * 1009 + key_id), sum(key_id * (checked_count * 7 + leaked_count * 11
                       + late_release_count * 13 + error_count * 17 + coalesce(passed_site_id, -1) * 19 + coalesce(slowest_pass_us, -1)))
                FROM leak_states
                """) { row in digest += [row.int64(at: 0), row.int64(at: 1), row.int64(at: 2)] }
            try db.query("SELECT count(*), sum(id * (scenario_id * 1009 + type_id * 31 + coalesce(site_id, -1))) FROM leak_keys") { row in
                digest += [row.int64(at: 0), row.int64(at: 1)]
            }
            return digest
        }
    }

    /// A copy of a SQLite database file, its WAL checkpointed into it first.
    static func copyDatabase(_ path: String, to copy: String) throws {
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
    }

    static func fileSize(_ path: String) throws -> Int64 {
        [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
