import Foundation
import LeakReport
import LeakStore

/// `POST`, `GET /v1/projects/{project}/suppressions` and
/// `DELETE /v1/projects/{project}/suppressions/{id}`. Writes need a write token; the list is a
/// read. Times are ISO 8601 text on the wire.
enum SuppressionRoutes {
    @Sendable
    static func create(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let draft = try QueryInput.decode(SuppressionDraft.self, from: request.body)
        for (field, pattern) in [("type", draft.type), ("scenario", draft.scenario), ("fingerprint", draft.fingerprint)] {
            if let pattern { _ = try QueryInput.text(pattern, field: field) }
        }
        guard draft.type != nil || draft.scenario != nil || draft.fingerprint != nil else {
            throw HTTPFailure.badRequest("type, scenario, fingerprint: give at least one pattern")
        }
        let reason = try QueryInput.text(draft.reason, field: "reason")
        let createdBy = try draft.createdBy.map { try QueryInput.text($0, field: "createdBy") }
        var expiresAt: Date?
        if let text = draft.expiresAt {
            guard isDateTime(text), let date = ReportTimestamp.date(from: text) else {
                throw HTTPFailure.badRequest("expiresAt: expected an ISO 8601 time such as 2026-12-31T00:00:00Z, "
                                             + "found \"\(QueryInput.clip(text))\"")
            }
            expiresAt = date
        }
        let stored = try context.store.addSuppression(project: project, LeakSuppression(
            type: draft.type, scenario: draft.scenario, fingerprint: draft.fingerprint, reason: reason, expiresAt: expiresAt,
            createdBy: createdBy))
        return try Response.json(SuppressionRecord(stored, now: Date()), status: 201)
    }

    /// RFC 3339 `date-time` with its fields in range (the ISO 8601 parser accepts minute 99).
    static func isDateTime(_ text: String) -> Bool {
        guard let match = text.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})/),
              let month = Int(match.2), let day = Int(match.3), let hour = Int(match.4), let minute = Int(match.5),
              let second = Int(match.6)
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day) && hour < 24 && minute < 60 && second < 60
    }

    /// `GET …/suppressions?limit=&cursor=`: a page of the rules, oldest first; `next` (the
    /// page's last id) is the cursor of the following page.
    @Sendable
    static func list(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let limit = try QueryInput.pageLimit(request)
        let rules = try context.store.suppressions(project: project, after: try QueryInput.idCursor(request), limit: limit + 1)
        let now = Date()
        let page = rules.prefix(limit)
        return try Response.json(SuppressionList(suppressions: page.map { SuppressionRecord($0, now: now) },
                                                 next: rules.count > limit ? page.last?.id.map(String.init) : nil))
    }

    @Sendable
    static func delete(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        let raw = request.parameter("id")
        guard let id = Int64(raw), id > 0 else {
            throw HTTPFailure.badRequest("id: expected a positive whole number, found \"\(QueryInput.clip(raw))\"")
        }
        guard try context.store.deleteSuppression(project: project, id: id) else {
            throw HTTPFailure.notFound("project \"\(project)\" has no suppression \(id)")
        }
        return Response(status: 204)
    }
}
