import Foundation
import LeakReport

/// The ingest suite's uploads, shaped like CI's: a project's test suite — stable keys, a few of
/// them leaking at every commit and a few intermittently — run on each new commit of main, each
/// commit's parent the one before, with a re-run now and then. The runs the suite measured before
/// were drawn at random from a million possible keys and re-uploaded to the same commits round
/// after round: neither is what a server sees from CI, where almost every upload names a new
/// commit and the keys it already knows. Server CPU a 10-check upload, on the same server:
/// 270–330 µs re-uploading to a commit with the same keys (what those rounds measured), 400–470
/// µs on a new commit with known keys, 600–870 µs with new keys. A 1,000-check upload on a new
/// commit changes one page of key states per key (they are in key order): ~800 pages of log an
/// upload, each transaction its own.
///
/// - 1,000-check uploads: the whole suite (1,000 keys), one run a build.
/// - 10-check uploads: a suite of 400 keys split into 40 shards, one CI job and one upload each
///   (`swift test --filter` per job): 40 uploads a build, from whichever runner is free.
///
/// Every 25th build re-runs the commit of the build before it. Upload `index` of a stream is the
/// same in every process (the client, the raw baseline), and a stream's commits go on where the
/// last round's stopped when each round starts at the index the last one ended.
enum CIUploads {
    /// The keys of the suite that uploads of `checks` checks come from: as many as a run checks,
    /// or for small runs 40 shards' worth.
    static func suiteKeys(checks: Int) -> Int { checks >= 400 ? checks : checks * 40 }

    /// Upload `index`'s commit and its parents.
    static func commit(index: Int, checks: Int) -> (sha: String, parents: [String]) {
        let build = index / (suiteKeys(checks: checks) / checks)
        // Build 25 re-runs build 24's commit, build 50 build 48's, …
        let commit = build - build / 25
        // Streams of different sizes live on commits of their own.
        let base = 2_000_000 + checks * 10_000_000
        return (QueriesBenchmark.commitSHA(base + commit), commit > 0 ? [QueriesBenchmark.commitSHA(base + commit - 1)] : [])
    }

    static func run(key: String, index: Int, checks: Int, project: String = "bench") -> RunRecord {
        let shards = suiteKeys(checks: checks) / checks
        let build = index / shards, shard = index % shards
        let (sha, parents) = commit(index: index, checks: checks)
        let timestamp = Date(timeIntervalSince1970: 1_780_000_000 + Double(build) * 600)
        let records = (shard * checks..<(shard + 1) * checks).map { key in
            var random = SplitMix64(seed: UInt64(build) &* 1_000_003 &+ UInt64(key))
            // One key in a hundred leaks at every commit; one in fifty a fifth of the time.
            let leaked = key % 100 == 7 || (key % 50 == 3 && random.next(below: 5) == 0)
            let type = key % 97
            return CheckRecord(
                scenario: "Suite\(key / 10)/test\(key)()", file: "Tests/Suite\(key / 10).swift", line: 12 + key % 10 * 20,
                type: "App.Type\(type)", outcome: leaked ? .leaked : .deallocated, waitedMs: leaked ? 2_000 : 0.4,
                timeoutMs: 2_000, fingerprint: leaked ? "fp-\(type)" : nil, timestamp: timestamp)
        }
        return RunRecord(project: project, commit: sha, branch: "main", parents: parents, environment: "linux-swift6.3",
                         runKey: key, startedAt: timestamp, tool: .init(name: "leakhistory-bench", version: "1"),
                         checks: records)
    }
}
