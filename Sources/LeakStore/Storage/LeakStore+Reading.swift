import Foundation
import LeakReport

extension LeakStore {
    /// Whether a project of that name exists.
    public func projectExists(_ name: String) throws -> Bool {
        try read { try $0.scalarInt("SELECT id FROM projects WHERE name = ?", [.text(name)]) != nil }
    }

    /// The commit `sha` of `project` with its runs and their leaks, or nil when nothing was uploaded for it.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func commit(project: String, sha: String) throws -> CommitSummary? {
        try read { db in
            guard let projectID = try db.scalarInt("SELECT id FROM projects WHERE name = ?", [.text(project)]) else {
                throw LeakStoreError.projectNotFound(project)
            }
            var summary: CommitSummary?
            var commitID: Int64 = 0
            try db.query("SELECT id, sha, branch FROM commits WHERE project_id = ? AND sha = ?",
                         [.integer(projectID), .text(sha.lowercased())]) { row in
                commitID = row.int64(at: 0)
                summary = CommitSummary(sha: row.string(at: 1) ?? sha, branch: row.string(at: 2), parents: [], runs: [])
            }
            guard var found = summary else { return nil }
            try db.query("SELECT parent_sha FROM commit_parents WHERE commit_id = ? ORDER BY position",
                         [.integer(commitID)]) { found.parents.append($0.string(at: 0) ?? "") }
            try db.query("""
                SELECT id, run_key, environment, started_at, check_count, leaked_count, late_release_count,
                       error_count, suspect
                FROM runs WHERE commit_id = ? ORDER BY id
                """, [.integer(commitID)]) { row in
                found.runs.append(CommitSummary.Run(
                    runID: row.int64(at: 0), runKey: row.string(at: 1) ?? "", environment: row.string(at: 2) ?? "",
                    startedAt: row.string(at: 3) ?? "", checks: row.int(at: 4), leaked: row.int(at: 5),
                    lateRelease: row.int(at: 6), errors: row.int(at: 7), suspect: row.int(at: 8) != 0, leaks: []))
            }
            for index in found.runs.indices {
                try db.query("""
                    SELECT s.name, t.name, k.file, k.line, k.fingerprint, k.retain_path, k.message
                    FROM checks k JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
                    WHERE k.run_id = ? AND k.outcome = 'leaked' ORDER BY k.id
                    """, [.integer(found.runs[index].runID)]) { row in
                    found.runs[index].leaks.append(CommitSummary.Leak(
                        scenario: row.string(at: 0) ?? "", type: row.string(at: 1) ?? "", file: row.string(at: 2) ?? "",
                        line: row.int(at: 3), fingerprint: row.string(at: 4),
                        retainPath: row.string(at: 5).flatMap { try? JSONDecoder().decode([RetainPathStep].self, from: Data($0.utf8)) },
                        message: row.string(at: 6)))
                }
            }
            return found
        }
    }
}
