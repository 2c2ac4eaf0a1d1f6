import Foundation
import LeakReport

extension LeakStore {
    /// Whether a project of that name exists.
    public func projectExists(_ name: String) throws -> Bool {
        try read { try $0.scalarInt("SELECT id FROM projects WHERE name = ?", [.text(name)]) != nil }
    }

    /// The most leaks one page of a commit may hold, and the default.
    public static let maxCommitLeaks = 1_000
    public static let defaultCommitLeaks = 200

    /// The commit `sha` of `project` with all its runs and one page of their leaks: at most
    /// `limit` leaked checks, in run order then upload order, starting after `cursor`; `next`
    /// continues after the last one, nil on the last page. Nil when nothing was uploaded for it.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func commit(project: String, sha: String, limit: Int, cursor: CommitCursor?) throws -> CommitSummary? {
        let limit = min(max(limit, 1), Self.maxCommitLeaks)
        return try read { db in
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
            // One index range of `checks_by_run` per run, from the cursor on, until the page is full.
            var taken = 0
            var last: CommitCursor?
            for index in found.runs.indices where found.runs[index].leaked > 0 {
                let runID = found.runs[index].runID
                if let cursor, runID < cursor.runID { continue }
                let afterCheck = cursor.map { $0.runID == runID ? $0.checkID : 0 } ?? 0
                guard taken <= limit else { break }
                try db.query("""
                    SELECT k.id, s.name, t.name, cs.file, cs.line, k.fingerprint, k.retain_path, k.message
                    FROM checks k JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
                         JOIN check_sites cs ON cs.id = k.site_id
                    WHERE k.run_id = ? AND k.id > ? AND k.outcome = 'leaked' ORDER BY k.id LIMIT ?
                    """, [.integer(runID), .integer(afterCheck), .integer(Int64(limit - taken + 1))]) { row in
                    taken += 1
                    guard taken <= limit else { return }
                    last = CommitCursor(runID: runID, checkID: row.int64(at: 0))
                    found.runs[index].leaks.append(CommitSummary.Leak(
                        scenario: row.string(at: 1) ?? "", type: row.string(at: 2) ?? "", file: row.string(at: 3) ?? "",
                        line: row.int(at: 4), fingerprint: row.string(at: 5),
                        retainPath: row.string(at: 6).flatMap(RetainPathJSON.steps),
                        message: row.string(at: 7)))
                }
            }
            found.next = taken > limit ? last?.text : nil
            return found
        }
    }
}

/// Where a page of a commit's leaks ends: the run and the check, as an opaque text for `?cursor=`.
public struct CommitCursor: Sendable, Hashable {
    public var runID: Int64
    public var checkID: Int64

    public init(runID: Int64, checkID: Int64) {
        self.runID = runID
        self.checkID = checkID
    }

    /// Reads a cursor that `text` gave; nil for anything else.
    public init?(_ text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.count <= 64, let data = Data(base64Encoded: base64),
              let plain = String(data: data, encoding: .utf8), plain.hasPrefix("c1:") else { return nil }
        let parts = plain.dropFirst(3).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let run = Int64(parts[0]), let check = Int64(parts[1]), run > 0, check > 0 else { return nil }
        self.init(runID: run, checkID: check)
    }

    /// Base64url of `c1:<run>:<check>`, without padding.
    public var text: String {
        Data("c1:\(runID):\(checkID)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
