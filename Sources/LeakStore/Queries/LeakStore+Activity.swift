import Foundation
import LeakReport

extension LeakStore {
    /// The project's newest runs (any environment), the leaks of its newest usable runs, and
    /// the branches and environments it has uploads for; each list at most `limit` long.
    ///
    /// Uploads still being stored (`PendingUpload`) are left out of every list.
    ///
    /// Runs come newest first by the primary key: `+r.project_id` keeps SQLite off the
    /// project's indexes (which would read every run of the project and sort them), so it
    /// walks the runs table backwards and stops at the limit; leaks come from the newest leaking
    /// runs through `checks_by_run`, run by run until the list is full. Branches and
    /// environments are read by skip-scan: one index seek per distinct name.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func activity(project: String, limit: Int) throws -> ProjectActivity {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            let projectID = history.projectID
            var runs: [ProjectActivity.Run] = []
            try db.query(sql: """
                SELECT r.id, c.sha, r.branch, r.environment, r.started_at, r.check_count, r.leaked_count,
                       r.late_release_count, r.error_count, r.suspect
                FROM runs r JOIN commits c ON c.id = r.commit_id
                WHERE +r.project_id = \(projectID) AND \(raw: PendingUpload.isPublished("r")) ORDER BY r.id DESC LIMIT \(limit + 1)
                """) { row in
                runs.append(ProjectActivity.Run(
                    runID: row.int64("id"), commit: row.string("sha") ?? "", branch: row.string("branch"),
                    environment: row.string("environment") ?? "", startedAt: row.string("started_at") ?? "",
                    checks: row.int("check_count"), leaked: row.int("leaked_count"), lateRelease: row.int("late_release_count"),
                    errors: row.int("error_count"), suspect: row.int("suspect") != 0))
            }
            // The newest leaking runs, newest first, then each one's leaks in upload order until
            // the list is full: a run of 100,000 checks further back is never read.
            var leakingRuns: [Int64] = []
            try db.query(sql: """
                SELECT r.id FROM runs r WHERE +r.project_id = \(projectID) AND r.suspect = 0 AND r.leaked_count > 0
                  AND \(raw: PendingUpload.isPublished("r")) ORDER BY r.id DESC LIMIT \(limit + 1)
                """) { leakingRuns.append($0.int64("id")) }
            var leaks: [ProjectActivity.Leak] = []
            for runID in leakingRuns where leaks.count <= limit {
                try db.query(sql: """
                    SELECT c.sha, r.branch, r.environment, r.started_at, s.name AS scenario_name, t.name AS type_name,
                           cs.file, cs.line, k.fingerprint
                    FROM runs r JOIN commits c ON c.id = r.commit_id
                         JOIN checks k ON k.run_id = r.id
                         JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
                         JOIN check_sites cs ON cs.id = k.site_id
                    WHERE r.id = \(runID) AND k.outcome = 'leaked'
                    ORDER BY k.id LIMIT \(limit + 1 - leaks.count)
                    """) { row in
                    leaks.append(ProjectActivity.Leak(
                        commit: row.string("sha") ?? "", branch: row.string("branch"), environment: row.string("environment") ?? "",
                        startedAt: row.string("started_at") ?? "", scenario: row.string("scenario_name") ?? "",
                        type: row.string("type_name") ?? "", file: row.string("file") ?? "", line: row.int("line"),
                        fingerprint: row.string("fingerprint")))
                }
            }
            var branches: [String] = []
            try db.query(sql: """
                WITH RECURSIVE b(name) AS (
                    SELECT min(branch) FROM commits WHERE project_id = \(projectID) AND branch IS NOT NULL
                    UNION ALL
                    SELECT (SELECT min(branch) FROM commits WHERE project_id = \(projectID) AND branch > b.name) FROM b
                    WHERE b.name IS NOT NULL)
                SELECT name FROM b WHERE name IS NOT NULL LIMIT \(limit)
                """) { branches.append($0.string("name") ?? "") }
            var environments: [String] = []
            try db.query(sql: """
                WITH RECURSIVE e(name) AS (
                    SELECT min(r.environment) FROM runs r WHERE r.project_id = \(projectID) AND \(raw: PendingUpload.isPublished("r"))
                    UNION ALL
                    SELECT (SELECT min(r.environment) FROM runs r
                            WHERE r.project_id = \(projectID) AND r.environment > e.name AND \(raw: PendingUpload.isPublished("r")))
                    FROM e WHERE e.name IS NOT NULL)
                SELECT name FROM e WHERE name IS NOT NULL LIMIT \(limit)
                """) { environments.append($0.string("name") ?? "") }
            return ProjectActivity(
                runs: Array(runs.prefix(limit)), leaks: Array(leaks.prefix(limit)), branches: branches,
                environments: environments, runsCut: runs.count > limit, leaksCut: leaks.count > limit)
        }
    }

    /// The keys of `type` leaking (or flaky) at the branch's newest commit with data, sorted by
    /// scenario, at most `limit`, each with its most telling check and the commit that
    /// introduced it: where its leaking stretch began along the branch head's first parents.
    /// Empty when the branch has no data or the type is unknown.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func typeLeaks(project: String, type: String, branch: String, environment: String,
                          limit: Int) throws -> [TypeLeak] {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            guard let typeID = try db.scalarInt(sql: "SELECT id FROM types WHERE name = \(type)") else { return [] }
            let line = try history.branchCommits(branch, environment: environment, limit: Self.firstSeenCommits)
            guard let head = line.first else { return [] }
            let leaking = try history.keyCounts(commitID: head.id, environment: environment, typeID: typeID, having: .leaking)
                .sorted { $0.scenario < $1.scenario }.prefix(limit)
            let checks = try history.tellingChecks(commitID: head.id, environment: environment, keys: Set(leaking.map(\.ids)))
            let since = try history.leakingSince(Set(leaking.map(\.ids)), along: line, environment: environment)
            return leaking.map { counts in
                let check = checks[counts.ids]
                return TypeLeak(
                    scenario: counts.scenario, state: counts.state, file: check?.file ?? "", line: check?.line ?? 0,
                    fingerprint: check?.fingerprint, retainPath: check?.retainPath, message: check?.message,
                    introducedBy: since[counts.ids])
            }
        }
    }
}
