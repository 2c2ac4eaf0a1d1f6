/// A leak's identity within a project and environment: the scenario that checked it and the
/// type that leaked. (The fingerprint groups the same root cause across scenarios.)
public struct LeakKey: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public var scenario: String
    public var type: String

    public init(scenario: String, type: String) {
        self.scenario = scenario
        self.type = type
    }

    public static func < (a: LeakKey, b: LeakKey) -> Bool {
        (a.type, a.scenario) < (b.type, b.scenario)
    }

    public var description: String { "\(type) in \(scenario)" }
}

/// What the runs at one commit said about one key.
public enum KeyState: String, Codable, Sendable {
    /// Every run that checked it saw it leak.
    case leaked
    /// Runs checked it and none saw it leak.
    case clean
    /// Runs at the same commit disagree: some leaked, some did not.
    case flaky
    /// It went, but only during the grace period: a warning.
    case lateRelease
    /// Its checks could not run to the end (a lifecycle threw).
    case error
}

/// One key at one commit: its state and what the most telling check said about it.
public struct KeyObservation: Codable, Sendable, Hashable {
    public var state: KeyState
    public var file: String
    public var line: Int
    public var fingerprint: String?
    public var retainPath: [RetainPathStep]?
    public var message: String?
    /// True when it leaked and every check that leaked it did so inside `withKnownIssue`.
    public var knownIssue: Bool?

    public init(state: KeyState, file: String, line: Int, fingerprint: String? = nil,
                retainPath: [RetainPathStep]? = nil, message: String? = nil, knownIssue: Bool? = nil) {
        self.state = state
        self.file = file
        self.line = line
        self.fingerprint = fingerprint
        self.retainPath = retainPath
        self.message = message
        self.knownIssue = knownIssue
    }

    /// Folds the checks of every run at one commit into one observation per key.
    ///
    /// A key is leaked if runs leaked it and none released it, flaky if some did and some did
    /// not, a late release if its worst outcome was one, clean if every check passed, and an
    /// error if its checks only errored. It is a known issue when every leaking check was one.
    public static func fold(_ checks: [CheckRecord]) -> [LeakKey: KeyObservation] {
        var grouped: [LeakKey: [CheckRecord]] = [:]
        for check in checks {
            grouped[LeakKey(scenario: check.scenario, type: check.type), default: []].append(check)
        }
        return grouped.mapValues { checks in
            let leaked = checks.filter { $0.outcome == .leaked }
            let released = checks.filter { $0.outcome == .deallocated || $0.outcome == .lateRelease }
            let state: KeyState
            if !leaked.isEmpty {
                state = released.isEmpty ? .leaked : .flaky
            } else if released.contains(where: { $0.outcome == .lateRelease }) {
                state = .lateRelease
            } else if !released.isEmpty {
                state = .clean
            } else {
                state = .error
            }
            let telling = leaked.first ?? checks.first { $0.outcome == .lateRelease } ?? checks[0]
            return KeyObservation(
                state: state, file: telling.file, line: telling.line, fingerprint: telling.fingerprint,
                retainPath: telling.retainPath, message: telling.message,
                knownIssue: !leaked.isEmpty && leaked.allSatisfy { $0.knownIssue == true } ? true : nil)
        }
    }
}
