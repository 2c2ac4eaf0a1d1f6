import Foundation
import LeakReport

extension LeakStore {
    /// Stores a suppression for the project and returns it with its id.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func addSuppression(project: String, _ rule: LeakSuppression, now: Date) throws -> LeakSuppression {
        try write { writer in
            let db = writer.connection
            guard let projectID = try db.scalarInt(sql: "SELECT id FROM projects WHERE name = \(project)") else {
                throw LeakStoreError.projectNotFound(project)
            }
            let id = try db.scalarInt(sql: """
                INSERT INTO suppressions (project_id, type_pattern, scenario_pattern, fingerprint_pattern, reason,
                    expires_at, created_at, created_by)
                VALUES (\(projectID), \(rule.type), \(rule.scenario), \(rule.fingerprint), \(rule.reason),
                        \(rule.expiresAt.map(ReportTimestamp.string(from:))), \(ReportTimestamp.string(from: now)), \(rule.createdBy))
                RETURNING id
                """)
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
            guard let projectID = try db.scalarInt(sql: "SELECT id FROM projects WHERE name = \(project)") else {
                throw LeakStoreError.projectNotFound(project)
            }
            let deleted = try db.scalarInt(sql: "DELETE FROM suppressions WHERE id = \(id) AND project_id = \(projectID) RETURNING id")
            return deleted != nil
        }
    }

    func suppressionRules(_ db: any SQLConnection, projectID: Int64, after: Int64? = nil,
                          limit: Int = Int.max) throws -> [LeakSuppression] {
        var rules: [LeakSuppression] = []
        try db.query(sql: """
            SELECT id, type_pattern, scenario_pattern, fingerprint_pattern, reason, expires_at, created_by, created_at
            FROM suppressions WHERE project_id = \(projectID) AND id > \(after ?? 0) ORDER BY id LIMIT \(Int64(min(limit, Int(Int64.max))))
            """) { row in
            rules.append(LeakSuppression(
                id: row.int("id"), type: row.string("type_pattern"), scenario: row.string("scenario_pattern"),
                fingerprint: row.string("fingerprint_pattern"), reason: row.string("reason") ?? "",
                expiresAt: row.string("expires_at").flatMap(ReportTimestamp.date(from:)),
                createdBy: row.string("created_by"), createdAt: row.string("created_at").flatMap(ReportTimestamp.date(from:))))
        }
        return rules
    }

}
