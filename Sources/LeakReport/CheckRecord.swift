import Foundation

/// One deallocation check: one line of a leak report (schema `leakhistory.check/1`).
///
/// ```json
/// {"schema":"leakhistory.check/1","scenario":"ProfileTests/profileScreen()","file":"ProfileTests.swift",
///  "line":12,"type":"App.ProfileViewModel","outcome":"leaked","waitedMs":2000.4,"timeoutMs":2000,
///  "lifecycle":"none","timestamp":"2026-11-30T02:10:57.123Z","source":"test"}
/// ```
public struct CheckRecord: Codable, Sendable, Hashable {
    /// The test's stable id, e.g. `ProfileTests/profileScreen()`, or a watcher's name.
    public var scenario: String
    public var file: String
    public var line: Int
    /// The module-qualified type, as `String(reflecting:)` spells it.
    public var type: String
    public var outcome: CheckOutcome
    /// How long the check waited for the object to go, in milliseconds.
    public var waitedMs: Double
    public var timeoutMs: Int
    /// The lifecycle the object went through before release: `none`, `custom`, …
    public var lifecycle: String
    public var retainPath: [RetainPathStep]?
    public var fingerprint: String?
    public var message: String?
    public var timestamp: Date
    public var source: CheckSource?
    /// True when the check leaked inside Swift Testing's `withKnownIssue`: the team already knows
    /// of this leak, so it is recorded as a known leak rather than a plain one. Absent otherwise.
    public var knownIssue: Bool?
    /// How many times the check ran with fresh objects (its confirmation attempts); absent means
    /// once. Read it through `attemptCount`.
    public var attempts: Int?
    /// How many of those attempts leaked; absent means every attempt for a leaked check, else
    /// none. Read it through `leakedAttemptCount`. A leaked check with fewer leaked attempts than
    /// attempts is intermittent at its source.
    public var leakedAttempts: Int?

    public init(
        scenario: String, file: String, line: Int, type: String, outcome: CheckOutcome,
        waitedMs: Double, timeoutMs: Int, lifecycle: String = "none",
        retainPath: [RetainPathStep]? = nil, fingerprint: String? = nil, message: String? = nil,
        timestamp: Date = Date(), source: CheckSource? = .test, knownIssue: Bool? = nil,
        attempts: Int? = nil, leakedAttempts: Int? = nil
    ) {
        self.scenario = scenario
        self.file = file
        self.line = line
        self.type = type
        self.outcome = outcome
        self.waitedMs = waitedMs
        self.timeoutMs = timeoutMs
        self.lifecycle = lifecycle
        self.retainPath = retainPath
        self.fingerprint = fingerprint
        self.message = message
        self.timestamp = ReportTimestamp.normalized(timestamp)
        self.source = source
        self.knownIssue = knownIssue
        self.attempts = attempts
        self.leakedAttempts = leakedAttempts
    }

    /// Every member name a check has on the wire, as the model codes it; the server's fast
    /// parser is tested against this list.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.rawValue) }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case schema, scenario, file, line, type, outcome, waitedMs, timeoutMs, lifecycle
        case retainPath, fingerprint, message, timestamp, source, knownIssue
        case attempts, leakedAttempts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try c.acceptSchema(.check, forKey: .schema)
        scenario = try c.decode(String.self, forKey: .scenario)
        file = try c.decode(String.self, forKey: .file)
        line = try c.decode(Int.self, forKey: .line)
        type = try c.decode(String.self, forKey: .type)
        outcome = try c.decode(CheckOutcome.self, forKey: .outcome)
        waitedMs = try c.decode(Double.self, forKey: .waitedMs)
        timeoutMs = try c.decode(Int.self, forKey: .timeoutMs)
        lifecycle = try c.decodeIfPresent(String.self, forKey: .lifecycle) ?? "none"
        retainPath = try c.decodeIfPresent([RetainPathStep].self, forKey: .retainPath)
        fingerprint = try c.decodeIfPresent(String.self, forKey: .fingerprint)
        message = try c.decodeIfPresent(String.self, forKey: .message)
        timestamp = try c.decodeTimestamp(forKey: .timestamp)
        source = try c.decodeIfPresent(CheckSource.self, forKey: .source)
        knownIssue = try c.decodeIfPresent(Bool.self, forKey: .knownIssue)
        attempts = try c.decodeIfPresent(Int.self, forKey: .attempts)
        leakedAttempts = try c.decodeIfPresent(Int.self, forKey: .leakedAttempts)
        if let problem = attemptsProblem, let key = CodingKeys(rawValue: problem.field) {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: problem.problem)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(SchemaVersion.check.description, forKey: .schema)
        try c.encode(scenario, forKey: .scenario)
        try c.encode(file, forKey: .file)
        try c.encode(line, forKey: .line)
        try c.encode(type, forKey: .type)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(waitedMs, forKey: .waitedMs)
        try c.encode(timeoutMs, forKey: .timeoutMs)
        try c.encode(lifecycle, forKey: .lifecycle)
        try c.encodeIfPresent(retainPath, forKey: .retainPath)
        try c.encodeIfPresent(fingerprint, forKey: .fingerprint)
        try c.encodeIfPresent(message, forKey: .message)
        try c.encode(ReportTimestamp.string(from: timestamp), forKey: .timestamp)
        try c.encodeIfPresent(source, forKey: .source)
        try c.encodeIfPresent(knownIssue, forKey: .knownIssue)
        try c.encodeIfPresent(attempts, forKey: .attempts)
        try c.encodeIfPresent(leakedAttempts, forKey: .leakedAttempts)
    }
}
