import Foundation
import LeakReport

extension LeakStore {
    /// Stores a suppression for the project and returns it with its id.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func addSuppression(project: String, _ rule: LeakSuppression, now: Date) throws -> LeakSuppression {
        try write { writer in
            let db = writer.connection
            guard let projectID = try db.scalarInt("SELECT id FROM projects WHERE name = ?", [.text(project)]) else {
                throw LeakStoreError.projectNotFound(project)
            }
            let id = try db.scalarInt("""
                INSERT INTO suppressions (project_id, type_pattern, scenario_pattern, fingerprint_pattern, reason,
                    expires_at, created_at, created_by)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, [.integer(projectID), .text(rule.type), .text(rule.scenario), .text(rule.fingerprint),
                      .text(rule.reason), .text(rule.expiresAt.map(ReportTimestamp.string(from:))),
                      .text(ReportTimestamp.string(from: now)), .text(rule.createdBy)])
            var stored = rule
            stored.id = id.map(Int.init)
            stored.createdAt = ReportTimestamp.date(from: ReportTimestamp.string(from: now))
            return stored
        }
    }

    /// The project's suppressions, expired ones included, oldest first: at most `limit`, those
    /// with ids above `after`.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func suppressions(project: String, after: Int64?, limit: Int) throws -> [LeakSuppression] {
        try read { db in
            try suppressionRules(db, projectID: try ProjectHistory(db, project: project).projectID, after: after, limit: limit)
        }
    }

    /// Deletes suppression `id` of the project; false when the project has no such suppression.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func deleteSuppression(project: String, id: Int64) throws -> Bool {
        try write { writer in
            let db = writer.connection
            guard let projectID = try db.scalarInt("SELECT id FROM projects WHERE name = ?", [.text(project)]) else {
                throw LeakStoreError.projectNotFound(project)
            }
            let deleted = try db.scalarInt(
                "DELETE FROM suppressions WHERE id = ? AND project_id = ? RETURNING id", [.integer(id), .integer(projectID)])
            return deleted != nil
        }
    }

    func suppressionRules(_ db: any SQLConnection, projectID: Int64, after: Int64? = nil,
                          limit: Int = Int.max) throws -> [LeakSuppression] {
        var rules: [LeakSuppression] = []
        try db.query("""
            SELECT id, type_pattern, scenario_pattern, fingerprint_pattern, reason, expires_at, created_by, created_at
            FROM suppressions WHERE project_id = ? AND id > ? ORDER BY id LIMIT ?
            """, [.integer(projectID), .integer(after ?? 0), .integer(Int64(min(limit, Int(Int64.max))))]) { row in
            rules.append(LeakSuppression(
                id: row.int(at: 0), type: row.string(at: 1), scenario: row.string(at: 2), fingerprint: row.string(at: 3),
                reason: row.string(at: 4) ?? "", expiresAt: row.string(at: 5).flatMap(ReportTimestamp.date(from:)),
                createdBy: row.string(at: 6), createdAt: row.string(at: 7).flatMap(ReportTimestamp.date(from:))))
        }
        return rules
    }

}
