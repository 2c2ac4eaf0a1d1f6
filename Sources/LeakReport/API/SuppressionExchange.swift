import Foundation

/// `POST /v1/projects/{project}/suppressions`: at least one pattern, a reason, an optional
/// expiry (ISO 8601) and who adds it.
public struct SuppressionDraft: Codable, Sendable, Hashable {
    public var type: String?
    public var scenario: String?
    public var fingerprint: String?
    public var reason: String
    public var expiresAt: String?
    /// The CLI sends git's `user.email`, or the CI actor.
    public var createdBy: String?

    public init(type: String? = nil, scenario: String? = nil, fingerprint: String? = nil, reason: String,
                expiresAt: String? = nil, createdBy: String? = nil) {
        self.type = type
        self.scenario = scenario
        self.fingerprint = fingerprint
        self.reason = reason
        self.expiresAt = expiresAt
        self.createdBy = createdBy
    }
}

/// One stored suppression as the API answers it; times are ISO 8601 text.
public struct SuppressionRecord: Codable, Sendable, Hashable {
    public var id: Int
    public var type: String?
    public var scenario: String?
    public var fingerprint: String?
    public var reason: String
    public var expiresAt: String?
    public var createdBy: String?
    public var createdAt: String?
    /// False once `expiresAt` has passed: the rule no longer applies.
    public var active: Bool

    public init(_ rule: LeakSuppression, now: Date) {
        id = rule.id ?? 0
        type = rule.type
        scenario = rule.scenario
        fingerprint = rule.fingerprint
        reason = rule.reason
        expiresAt = rule.expiresAt.map(ReportTimestamp.string(from:))
        createdBy = rule.createdBy
        createdAt = rule.createdAt.map(ReportTimestamp.string(from:))
        active = rule.isActive(at: now)
    }

    /// `type App.*Cache · scenario ProfileTests/*`: the patterns it has.
    public var patterns: String {
        [("type", type), ("scenario", scenario), ("fingerprint", fingerprint)]
            .compactMap { name, pattern in pattern.map { "\(name) \($0)" } }.joined(separator: " · ")
    }
}

/// `GET /v1/projects/{project}/suppressions`: expired rules included, oldest first, a page at
/// a time.
public struct SuppressionList: Codable, Sendable, Hashable {
    public var suppressions: [SuppressionRecord]
    /// Present when more rules follow: the `cursor` of the next page.
    public var next: String?

    public init(suppressions: [SuppressionRecord], next: String? = nil) {
        self.suppressions = suppressions
        self.next = next
    }
}
