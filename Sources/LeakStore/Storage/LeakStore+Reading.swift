import Foundation
import LeakReport

extension LeakStore {
    /// Whether a project of that name exists.
    public func projectExists(_ name: String) throws -> Bool {
        try read { try $0.scalarInt(sql: "SELECT id FROM projects WHERE name = \(name)") != nil }
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
            guard let projectID = try db.scalarInt(sql: "SELECT id FROM projects WHERE name = \(project)") else {
                throw LeakStoreError.projectNotFound(project)
            }
            var summary: CommitSummary?
            var commitID: Int64 = 0
            try db.query(sql: "SELECT id, sha, branch FROM commits WHERE project_id = \(projectID) AND sha = \(sha.lowercased())") { row in
                commitID = row.int64("id")
                summary = CommitSummary(sha: row.string("sha") ?? sha, branch: row.string("branch"), parents: [], runs: [])
            }
            guard var found = summary else { return nil }
            try db.query(sql: "SELECT parent_sha FROM commit_parents WHERE commit_id = \(commitID) ORDER BY position") {
                found.parents.append($0.string("parent_sha") ?? "")
            }
            try db.query(sql: """
                SELECT id, run_key, environment, started_at, check_count, leaked_count, late_release_count,
                       error_count, suspect
                FROM runs WHERE commit_id = \(commitID) ORDER BY id
                """) { row in
                found.runs.append(CommitSummary.Run(
                    runID: row.int64("id"), runKey: row.string("run_key") ?? "", environment: row.string("environment") ?? "",
                    startedAt: row.string("started_at") ?? "", checks: row.int("check_count"), leaked: row.int("leaked_count"),
                    lateRelease: row.int("late_release_count"), errors: row.int("error_count"), suspect: row.int("suspect") != 0,
                    leaks: []))
            }
            // One index range of `checks_by_run` per run, from the cursor on, until the page is full.
            var taken = 0
            var last: CommitCursor?
            for index in found.runs.indices where found.runs[index].leaked > 0 {
                let runID = found.runs[index].runID
                if let cursor, runID < cursor.runID { continue }
                let afterCheck = cursor.map { $0.runID == runID ? $0.checkID : 0 } ?? 0
                guard taken <= limit else { break }
                try db.query(sql: """
                    SELECT k.id, s.name AS scenario_name, t.name AS type_name, cs.file, cs.line, k.fingerprint, k.retain_path, k.message
                    FROM checks k JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
                         JOIN check_sites cs ON cs.id = k.site_id
                    WHERE k.run_id = \(runID) AND k.id > \(afterCheck) AND k.outcome = 'leaked' ORDER BY k.id LIMIT \(limit - taken + 1)
                    """) { row in
                    taken += 1
                    guard taken <= limit else { return }
                    last = CommitCursor(runID: runID, checkID: row.int64("id"))
                    found.runs[index].leaks.append(CommitSummary.Leak(
                        scenario: row.string("scenario_name") ?? "", type: row.string("type_name") ?? "", file: row.string("file") ?? "",
                        line: row.int("line"), fingerprint: row.string("fingerprint"),
                        retainPath: row.string("retain_path").flatMap(RetainPathJSON.steps),
                        message: row.string("message")))
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
