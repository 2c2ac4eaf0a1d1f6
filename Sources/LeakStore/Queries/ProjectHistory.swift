import Foundation
import LeakReport

/// The read-side queries of one project on one reader connection. Every query filters by the
/// project id, so one project's data never answers for another.
struct ProjectHistory {
    let db: any SQLConnection
    let projectID: Int64
    /// What this snapshot already read, for the many ranges that ask the same (`suspectCommits`).
    let memo = Memo()

    /// - Throws: `LeakStoreError.projectNotFound`.
    init(_ db: any SQLConnection, project: String) throws {
        guard let id = try db.scalarInt("SELECT id FROM projects WHERE name = ?", [.text(project)]) else {
            throw LeakStoreError.projectNotFound(project)
        }
        self.db = db
        projectID = id
    }

    func commitID(_ sha: String) throws -> Int64? {
        try db.scalarInt("SELECT id FROM commits WHERE project_id = ? AND sha = ?", [.integer(projectID), .text(sha.lowercased())])
    }

    func branch(ofCommit commitID: Int64) throws -> String? {
        try db.scalarText("SELECT branch FROM commits WHERE id = ?", [.integer(commitID)])
    }

    /// Runs at the commit in the environment: the usable (non-suspect) ones and the suspect ones.
    func runCounts(commitID: Int64, environment: String) throws -> (usable: Int, suspect: Int) {
        var counts = (usable: 0, suspect: 0)
        try db.query("""
            SELECT coalesce(sum(suspect = 0), 0), coalesce(sum(suspect = 1), 0) FROM runs
            WHERE commit_id = ? AND environment = ?
            """, [.integer(commitID), .text(environment)]) { row in
            counts = (row.int(at: 0), row.int(at: 1))
        }
        return counts
    }

    /// Every key's counts at the commit. From the usable runs only (a base side), unless
    /// `includingSuspect` (a head side, where a suspect run hides nothing). `leak_states` holds
    /// the usable runs' counts; a suspect run's checks are all full records, added up here.
    func keyCounts(commitID: Int64, environment: String, typeID: Int64? = nil, includingSuspect: Bool = false) throws -> [KeyCounts] {
        let runs = try runCounts(commitID: commitID, environment: environment)
        guard runs.usable > 0 || (includingSuspect && runs.suspect > 0) else { return [] }
        var result: [KeyCounts] = []
        let values: [SQLValue] = [.integer(commitID), .text(environment), typeID.map(SQLValue.integer) ?? .null]
        func append(_ row: any SQLRow) {
            result.append(KeyCounts(
                scenarioID: row.int64(at: 0), typeID: row.int64(at: 1), scenario: row.string(at: 2) ?? "",
                type: row.string(at: 3) ?? "", checked: row.int(at: 4), leaked: row.int(at: 5),
                lateRelease: row.int(at: 6), errors: row.int(at: 7)))
        }
        if runs.usable > 0 {
            try db.query("""
                SELECT k.scenario_id, k.type_id, s.name, t.name, ls.checked_count, ls.leaked_count,
                       ls.late_release_count, ls.error_count
                FROM leak_states ls JOIN leak_keys k ON k.id = ls.key_id
                     JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
                WHERE ls.commit_id = ?1 AND ls.environment_id = (SELECT id FROM environments WHERE name = ?2)
                  AND (k.type_id = ?3 OR ?3 IS NULL)
                """, values, row: append)
            // In key order, as the suspect runs' merge below gives them.
            result.sort { ($0.scenarioID, $0.typeID) < ($1.scenarioID, $1.typeID) }
        }
        guard includingSuspect, runs.suspect > 0 else { return result }
        try db.query("""
            SELECT k.scenario_id, k.type_id, s.name, t.name, count(*), sum(k.outcome = 'leaked'),
                   sum(k.outcome = 'lateRelease'), sum(k.outcome = 'error')
            FROM runs r JOIN checks k ON k.run_id = r.id
                 JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
            WHERE r.commit_id = ?1 AND r.environment = ?2 AND r.suspect = 1 AND (k.type_id = ?3 OR ?3 IS NULL)
            GROUP BY k.scenario_id, k.type_id, s.name, t.name
            """, values, row: append)
        // Both halves in key order, each key once with its counts added up.
        var merged: [KeyIDs: KeyCounts] = [:]
        for counts in result {
            guard var existing = merged[counts.ids] else { merged[counts.ids] = counts; continue }
            existing.checked += counts.checked
            existing.leaked += counts.leaked
            existing.lateRelease += counts.lateRelease
            existing.errors += counts.errors
            merged[counts.ids] = existing
        }
        return merged.values.sorted { ($0.scenarioID, $0.typeID) < ($1.scenarioID, $1.typeID) }
    }

    /// How many keys one statement of `keyStates` asks for: a diff's many keys cost a few
    /// round trips, not a few per key.
    static let keyBatch = 128

    /// Each key's state at each of `commitIDs` that checked it, from its usable runs (every run
    /// at `allRunsAt`, a head): an index range of `leak_states_by_key` per key, plus the
    /// head's suspect runs' records when it has any. Keys go `keyBatch` to a statement.
    func keyStates(_ keys: Set<KeyIDs>, environment: String, at commitIDs: Set<Int64>,
                   allRunsAt head: Int64? = nil) throws -> [KeyIDs: [Int64: KeyState]] {
        guard !keys.isEmpty, let low = commitIDs.min(), let high = commitIDs.max() else { return [:] }
        var counts: [KeyIDs: [Int64: (checked: Int, leaked: Int, lateRelease: Int, errors: Int)]] = [:]
        func add(_ ids: KeyIDs, _ commitID: Int64, _ row: any SQLRow, from column: Int32) {
            let sum = counts[ids]?[commitID] ?? (0, 0, 0, 0)
            counts[ids, default: [:]][commitID] = (sum.checked + row.int(at: column), sum.leaked + row.int(at: column + 1),
                                                   sum.lateRelease + row.int(at: column + 2), sum.errors + row.int(at: column + 3))
        }
        let batches = Self.keyBatches(keys)
        // `+k.type_id`: the keys found by scenario, their types a filter (both lists used on the index
        // of `leak_keys` would be a probe for every pair of the batch's scenarios and types).
        for batch in batches {
            try db.query("""
                SELECT k.scenario_id, k.type_id, ls.commit_id, ls.checked_count, ls.leaked_count, ls.late_release_count,
                       ls.error_count
                FROM leak_keys k JOIN leak_states ls INDEXED BY leak_states_by_key ON ls.key_id = k.id
                WHERE k.scenario_id IN (\(KeyBatch.scenarioSlots(from: 4))) AND +k.type_id IN (\(KeyBatch.typeSlots(from: 4)))
                  AND ls.environment_id = (SELECT id FROM environments WHERE name = ?1) AND ls.commit_id BETWEEN ?2 AND ?3
                """, [.text(environment), .integer(low), .integer(high)] + batch.values) { row in
                let ids = KeyIDs(scenarioID: row.int64(at: 0), typeID: row.int64(at: 1)), commitID = row.int64(at: 2)
                guard batch.keys.contains(ids), commitIDs.contains(commitID) else { return }
                add(ids, commitID, row, from: 3)
            }
            guard let head, commitIDs.contains(head) else { continue }
            try db.query("""
                SELECT k.scenario_id, k.type_id, count(*), coalesce(sum(k.outcome = 'leaked'), 0),
                       coalesce(sum(k.outcome = 'lateRelease'), 0), coalesce(sum(k.outcome = 'error'), 0)
                FROM runs r JOIN checks k ON k.run_id = r.id
                WHERE r.commit_id = ?1 AND r.environment = ?2 AND r.suspect = 1
                  AND k.scenario_id IN (\(KeyBatch.scenarioSlots(from: 3))) AND k.type_id IN (\(KeyBatch.typeSlots(from: 3)))
                GROUP BY k.scenario_id, k.type_id
                """, [.integer(head), .text(environment)] + batch.values) { row in
                let ids = KeyIDs(scenarioID: row.int64(at: 0), typeID: row.int64(at: 1))
                if batch.keys.contains(ids) { add(ids, head, row, from: 2) }
            }
        }
        return counts.mapValues { byCommit in
            byCommit.filter { $0.value.checked > 0 }.mapValues {
                KeyCounts.state(checked: $0.checked, leaked: $0.leaked, lateRelease: $0.lateRelease, errors: $0.errors)
            }
        }
    }

    /// Keys `keyBatch` at a time, each batch's scenario and type ids padded with its last key,
    /// so that every batch is the same statement.
    private static func keyBatches(_ keys: Set<KeyIDs>) -> [KeyBatch] {
        let sorted = keys.sorted { ($0.scenarioID, $0.typeID) < ($1.scenarioID, $1.typeID) }
        return stride(from: 0, to: sorted.count, by: keyBatch).map { start in
            let chunk = Array(sorted[start..<min(start + keyBatch, sorted.count)])
            let padded = chunk + Array(repeating: chunk[chunk.count - 1], count: keyBatch - chunk.count)
            return KeyBatch(keys: Set(chunk), values: padded.map { .integer($0.scenarioID) } + padded.map { .integer($0.typeID) })
        }
    }

    private struct KeyBatch {
        var keys: Set<KeyIDs>
        /// `keyBatch` scenario ids, then `keyBatch` type ids: the statement's parameters after its own.
        var values: [SQLValue]

        /// `?first, …`: the scenario ids' parameters when the statement's own come before `first`.
        static func scenarioSlots(from first: Int) -> String {
            (first..<(first + ProjectHistory.keyBatch)).map { "?\($0)" }.joined(separator: ", ")
        }

        static func typeSlots(from first: Int) -> String {
            scenarioSlots(from: first + ProjectHistory.keyBatch)
        }
    }

    /// The head's suspect runs in the environment, oldest first.
    func suspectRuns(commitID: Int64, environment: String) throws -> [CommitDiff.SuspectRun] {
        var runs: [CommitDiff.SuspectRun] = []
        try db.query("""
            SELECT id, check_count, leaked_count, error_count FROM runs
            WHERE commit_id = ? AND environment = ? AND suspect = 1 ORDER BY id
            """, [.integer(commitID), .text(environment)]) { row in
            runs.append(.init(runID: row.int64(at: 0), checks: row.int(at: 1), leaked: row.int(at: 2), errors: row.int(at: 3)))
        }
        return runs
    }

    /// The most telling check of each wanted key at the commit (a leak before a late release
    /// before anything else, the first of each), as `KeyObservation.fold` picks it.
    /// `knownIssue` is true when every leaking check of the key was a known issue.
    ///
    /// Leaks, late releases and errors are full records. The first passing check without a row
    /// is the key's `passed_site_id` in `leak_states` (NULL: the key's usual site, `leak_keys.site_id`),
    /// there when `slowest_pass_us` is; a full record marked `before_pass` came
    /// before it, any other after it, so the first check of a key is the one the full rows gave.
    func tellingChecks(commitID: Int64, environment: String, keys: Set<KeyIDs>, includingSuspect: Bool = false) throws -> [KeyIDs: KeyObservation] {
        guard !keys.isEmpty else { return [:] }
        var found: [KeyIDs: (rank: Int, observation: KeyObservation)] = [:]
        // The first rank-0 record of each key that came before its first row-less passing check.
        var beforePass: [KeyIDs: KeyObservation] = [:]
        var plainLeaks: Set<KeyIDs> = []
        try db.query("""
            SELECT k.scenario_id, k.type_id, k.outcome, cs.file, cs.line, k.fingerprint, k.retain_path, k.message,
                   k.known_issue, k.before_pass
            FROM runs r JOIN checks k ON k.run_id = r.id JOIN check_sites cs ON cs.id = k.site_id
            WHERE r.commit_id = ? AND r.environment = ? AND (r.suspect = 0 OR ? = 1)
            ORDER BY k.id
            """, [.integer(commitID), .text(environment), .integer(includingSuspect ? 1 : 0)]) { row in
            let ids = KeyIDs(scenarioID: row.int64(at: 0), typeID: row.int64(at: 1))
            guard keys.contains(ids) else { return }
            if row.string(at: 2) == "leaked", row.int(at: 8) != 1 { plainLeaks.insert(ids) }
            let rank = switch row.string(at: 2) {
            case "leaked": 2
            case "lateRelease": 1
            default: 0
            }
            let observation = {
                KeyObservation(
                    state: .clean, file: row.string(at: 3) ?? "", line: row.int(at: 4), fingerprint: row.string(at: 5),
                    retainPath: row.string(at: 6).flatMap { try? JSONDecoder().decode([RetainPathStep].self, from: Data($0.utf8)) },
                    message: row.string(at: 7))
            }
            if rank == 0, row.int(at: 9) == 1, beforePass[ids] == nil { beforePass[ids] = observation() }
            if let existing = found[ids], existing.rank >= rank { return }
            found[ids] = (rank, observation())
        }
        var passedSites: [KeyIDs: KeyObservation] = [:]
        if found.count < keys.count || found.values.contains(where: { $0.rank == 0 }) {
            try db.query("""
                SELECT k.scenario_id, k.type_id, cs.file, cs.line
                FROM leak_states ls JOIN leak_keys k ON k.id = ls.key_id
                     JOIN check_sites cs ON cs.id = coalesce(ls.passed_site_id, k.site_id)
                WHERE ls.commit_id = ? AND ls.environment_id = (SELECT id FROM environments WHERE name = ?)
                  AND ls.slowest_pass_us IS NOT NULL
                """, [.integer(commitID), .text(environment)]) { row in
                let ids = KeyIDs(scenarioID: row.int64(at: 0), typeID: row.int64(at: 1))
                guard keys.contains(ids) else { return }
                passedSites[ids] = KeyObservation(state: .clean, file: row.string(at: 2) ?? "", line: row.int(at: 3))
            }
        }
        var result: [KeyIDs: KeyObservation] = [:]
        for ids in keys {
            if let record = found[ids], record.rank > 0 {
                var observation = record.observation
                if record.rank == 2, !plainLeaks.contains(ids) { observation.knownIssue = true }
                result[ids] = observation
            } else if let first = beforePass[ids] ?? passedSites[ids] ?? found[ids]?.observation {
                result[ids] = first
            }
        }
        return result
    }

    /// The commit's sha and when its first usable run in the environment started; `at` is nil
    /// when the commit has no usable run there.
    func commitPoint(_ commitID: Int64, environment: String) throws -> (sha: String, at: String?) {
        var point = (sha: "", at: String?.none)
        try db.query("""
            SELECT c.sha, (SELECT min(r.started_at) FROM runs r
                           WHERE r.commit_id = c.id AND r.environment = ? AND r.suspect = 0)
            FROM commits c WHERE c.id = ?
            """, [.text(environment), .integer(commitID)]) { row in
            point = (row.string(at: 0) ?? "", row.string(at: 1))
        }
        return point
    }

    /// Commits of `branch` with usable runs in the environment, newest first, at most `limit`.
    ///
    /// The walk starts at the branch's newest commit with data (upload order) and follows
    /// `firstParentLine`.
    func branchCommits(_ branch: String, environment: String, limit: Int) throws -> [BranchCommit] {
        guard limit > 0, let newest = try db.scalarInt("""
            SELECT c.id FROM commits c
            WHERE c.project_id = ? AND c.branch = ?
              AND EXISTS (SELECT 1 FROM runs r WHERE r.commit_id = c.id AND r.environment = ? AND r.suspect = 0)
            ORDER BY c.id DESC LIMIT 1
            """, [.integer(projectID), .text(branch), .text(environment)])
        else { return [] }
        return try firstParentLine(from: newest, branch: branch, environment: environment, limit: limit)
    }

    /// Commits with usable runs in the environment along first parents from `start` (included
    /// when it has data), newest first, at most `limit`.
    ///
    /// The walk follows first parents (`commit_parents` position 0); where a commit's first
    /// parent is unknown to the server (no upload there), it continues with `branch`'s previous
    /// commit in upload order. Commits without usable data are walked through but not listed;
    /// at most `max(limit * 20, 1,000)` commits are walked.
    func firstParentLine(from start: Int64, branch: String?, environment: String, limit: Int) throws -> [BranchCommit] {
        guard limit > 0 else { return [] }
        var result: [BranchCommit] = []
        var listed: Set<Int64> = []
        var walked: Set<Int64> = []
        var segmentStart: Int64? = start
        var steps = 0
        let maxSteps = max(limit * 20, 1_000)
        // Each segment is one recursive query along known first parents (each step looks up its
        // commit's first parent once, and that says whether the chain goes on); it yields the usable
        // commits and, last, the commit where the known chain ends with the branch's commit
        // before it in upload order (where the walk goes on, unless it was seen). SQLite stops
        // the recursion at the LIMIT. The outer query is a plain scan of the walk (no join), so
        // that rows come in the order the recursion made them, newest first, on both engines.
        while let from = segmentStart, result.count < limit, steps < maxSteps {
            segmentStart = nil
            var end: (id: Int64, depth: Int, previous: Int64?)?
            try db.query("""
                WITH RECURSIVE line(id, depth, parent) AS (
                    SELECT CAST(?1 AS BIGINT), 0,
                           (SELECT pc.id FROM commit_parents p JOIN commits pc ON pc.project_id = ?2 AND pc.sha = p.parent_sha
                            WHERE p.commit_id = CAST(?1 AS BIGINT) AND p.position = 0)
                    UNION ALL
                    SELECT line.parent, line.depth + 1,
                           (SELECT pc.id FROM commit_parents p JOIN commits pc ON pc.project_id = ?2 AND pc.sha = p.parent_sha
                            WHERE p.commit_id = line.parent AND p.position = 0)
                    FROM line WHERE line.parent IS NOT NULL AND line.depth < ?3)
                SELECT id, depth, sha, at, known_parent,
                       CASE WHEN known_parent = 0 THEN (SELECT max(b.id) FROM commits b
                                                        WHERE b.project_id = ?2 AND b.branch = ?6 AND b.id < walk.id) END
                FROM (
                    SELECT line.id, line.depth,
                           (SELECT c.sha FROM commits c WHERE c.id = line.id) AS sha,
                           (SELECT min(r.started_at) FROM runs r
                            WHERE r.commit_id = line.id AND r.environment = ?4 AND r.suspect = 0) AS at,
                           CASE WHEN line.parent IS NULL THEN 0 ELSE 1 END AS known_parent
                    FROM line) AS walk
                WHERE at IS NOT NULL OR known_parent = 0 OR depth = ?3
                LIMIT ?5
                """, [.integer(from), .integer(projectID), .integer(Int64(maxSteps - steps - 1)), .text(environment),
                      .integer(Int64(limit - result.count + 1)), .text(branch)]) { row in
                let id = row.int64(at: 0)
                if let at = row.string(at: 3), result.count < limit, listed.insert(id).inserted {
                    result.append(BranchCommit(id: id, sha: row.string(at: 2) ?? "", at: at))
                }
                if row.int(at: 4) == 0 || row.int(at: 1) == maxSteps - steps - 1 {
                    end = (id, row.int(at: 1), row.isNull(at: 5) ? nil : row.int64(at: 5))
                }
            }
            guard result.count < limit, let end else { break }
            steps += end.depth + 1
            walked.insert(end.id)
            if let branch, let previous = end.previous {
                let seen = walked.union(listed)
                segmentStart = seen.contains(previous) ? try previousInUploadOrder(previous, branch: branch, avoiding: seen) : previous
            }
        }
        return result
    }

    /// The commit's parent at `position` (0: the first parent), when the server knows it.
    func parent(of commitID: Int64, position: Int) throws -> Int64? {
        try db.scalarInt("""
            SELECT c.id FROM commit_parents p JOIN commits c ON c.project_id = ? AND c.sha = p.parent_sha
            WHERE p.commit_id = ? AND p.position = ?
            """, [.integer(projectID), .integer(commitID), .integer(Int64(position))])
    }

    /// The branches merged into `line` (a first-parent line, as `firstParentLine` walks it): for
    /// each of its merges whose second parent the server knows, that tip and the commit of `line`
    /// where the branch started (its merge-base), reached along the tip's first parents in at
    /// most `steps` commits. Where the walk reaches a commit without an upload (the merge-base,
    /// or a branch commit before it), the newest commit of `line` uploaded before the branch's
    /// oldest known commit stands in for the merge-base.
    func mergedBranches(into line: [BranchCommit], steps: Int) throws -> [MergedBranch] {
        guard let low = line.map(\.id).min(), let high = line.map(\.id).max() else { return [] }
        let position = Dictionary(line.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
        // First and second parents of every commit of the project uploaded in the line's span (the
        // merged branches' commits were uploaded in between), by sha, with their ids when uploaded.
        var firstParent: [Int64: (sha: String, id: Int64?)] = [:], secondParent: [Int64: Int64] = [:]
        try db.query("""
            SELECT p.commit_id, p.position, p.parent_sha, pc.id FROM commits child
            JOIN commit_parents p ON p.commit_id = child.id AND p.position < 2
            LEFT JOIN commits pc ON pc.project_id = child.project_id AND pc.sha = p.parent_sha
            WHERE child.project_id = ? AND child.id BETWEEN ? AND ?
            """, [.integer(projectID), .integer(low), .integer(high)]) { row in
            let parentID = row.isNull(at: 3) ? nil : row.int64(at: 3)
            if row.int(at: 1) == 0 { firstParent[row.int64(at: 0)] = (row.string(at: 2) ?? "", parentID) }
            else if let parentID { secondParent[row.int64(at: 0)] = parentID }
        }
        return line.compactMap { merge in
            guard let tip = secondParent[merge.id] else { return nil }
            var current = tip
            for _ in 0..<steps {
                guard let parent = firstParent[current] else { return nil }
                guard let parentID = parent.id else {
                    let before = current
                    return line.first { $0.id < before }.map { MergedBranch(merge: merge.id, tip: tip, mergeBase: $0.id) }
                }
                if let at = position[parentID], at > position[merge.id]! {
                    return MergedBranch(merge: merge.id, tip: tip, mergeBase: parentID)
                }
                current = parentID
            }
            return nil
        }
    }

    private func previousInUploadOrder(_ commitID: Int64, branch: String, avoiding visited: Set<Int64>) throws -> Int64? {
        var below = commitID
        while let previous = try db.scalarInt("""
            SELECT id FROM commits WHERE project_id = ? AND branch = ? AND id < ? ORDER BY id DESC LIMIT 1
            """, [.integer(projectID), .text(branch), .integer(below)]) {
            if !visited.contains(previous) { return previous }
            below = previous
        }
        return nil
    }

    /// Where the key's leaking stretch that ends at the newest commit of `line` began: the
    /// oldest commit of it along `line` (commits newest first, as `firstParentLine` walks them;
    /// commits where the key errored or was not checked are stepped over). Nil when it does not
    /// leak there. The one rule for `firstSeen` and "introduced by", so that the CLI, the API and
    /// the dashboard name the same commit.
    func leakingSince(_ keys: Set<KeyIDs>, along line: [BranchCommit], environment: String,
                      allRunsAt head: Int64? = nil) throws -> [KeyIDs: String] {
        let states = try keyStates(keys, environment: environment, at: Set(line.map(\.id)), allRunsAt: head)
        return keys.reduce(into: [:]) { since, ids in
            let states = states[ids] ?? [:]
            var first: String?
            walk: for commit in line {
                switch states[commit.id] {
                case .leaked?, .flaky?: first = commit.sha
                case .clean?, .lateRelease?: break walk
                case .error?, nil: continue
                }
            }
            since[ids] = first
        }
    }
}

/// A commit along a branch walk.
struct BranchCommit: Sendable {
    var id: Int64
    var sha: String
    /// When its first usable run started, ISO 8601.
    var at: String
}

/// A branch merged into a first-parent line: the merge, the branch's tip (the merge's second
/// parent) and the line's commit it started from.
struct MergedBranch: Sendable {
    var merge: Int64
    var tip: Int64
    var mergeBase: Int64
}
