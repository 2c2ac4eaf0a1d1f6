import Foundation

/// A rule that moves matching leaks out of "new": known leaks a team has decided to live with
/// for now, without a code change. Patterns use `*` for any run of characters.
public struct LeakSuppression: Codable, Sendable, Hashable {
    public var id: Int?
    /// `App.ImageCache`, `App.*Cache`; nil matches any type.
    public var type: String?
    /// `ProfileTests/*`; nil matches any scenario.
    public var scenario: String?
    /// A fingerprint or a pattern of one; nil matches any.
    public var fingerprint: String?
    /// Why the leak is accepted: shown next to every leak it suppresses.
    public var reason: String
    /// After this moment the rule no longer applies.
    public var expiresAt: Date?
    /// Who added it: a git e-mail address or a CI actor, as the client said.
    public var createdBy: String?
    /// When the server stored it.
    public var createdAt: Date?

    public init(id: Int? = nil, type: String? = nil, scenario: String? = nil, fingerprint: String? = nil,
                reason: String, expiresAt: Date? = nil, createdBy: String? = nil, createdAt: Date? = nil) {
        self.id = id
        self.type = type
        self.scenario = scenario
        self.fingerprint = fingerprint
        self.reason = reason
        self.expiresAt = expiresAt
        self.createdBy = createdBy
        self.createdAt = createdAt
    }

    /// True until `expiresAt` has passed.
    public func isActive(at now: Date) -> Bool {
        expiresAt.map { $0 > now } ?? true
    }

    /// True when the rule is in force at `now` and every pattern it has matches.
    public func matches(_ key: LeakKey, fingerprint leakFingerprint: String?, now: Date) -> Bool {
        isActive(at: now) && covers(key, fingerprint: leakFingerprint)
    }

    /// True when every pattern the rule has matches, whether or not it has expired.
    public func covers(_ key: LeakKey, fingerprint leakFingerprint: String?) -> Bool {
        if type == nil && scenario == nil && fingerprint == nil { return false }
        if let type, !Self.glob(type, matches: key.type) { return false }
        if let scenario, !Self.glob(scenario, matches: key.scenario) { return false }
        if let fingerprint {
            guard let leakFingerprint, Self.glob(fingerprint, matches: leakFingerprint) else { return false }
        }
        return true
    }

    /// `*` matches any run of characters (including none); everything else matches itself.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let pattern = Array(pattern), text = Array(text)
        var p = 0, t = 0, star = -1, mark = 0
        while t < text.count {
            if p < pattern.count, pattern[p] != "*", pattern[p] == text[t] {
                p += 1; t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p; mark = t; p += 1
            } else if star >= 0 {
                p = star + 1; mark += 1; t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
