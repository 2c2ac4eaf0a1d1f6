import Foundation

/// How the leaks at a head compare with those at its base: the answer to "did this change
/// bring in a leak?".
///
/// ```swift
/// let diff = LeakDiff(base: KeyObservation.fold(baseChecks), head: KeyObservation.fold(headChecks))
/// if diff.failsBuild(strict: false) { exit(1) }
/// ```
public struct LeakDiff: Codable, Sendable, Hashable {
    /// Where a key lands.
    public enum Category: String, Codable, Sendable, CaseIterable {
        /// Leaked at head, not at base — including scenarios the base never ran. Fails the build.
        case new
        /// Leaked at base, checked and clean at head.
        case fixed
        /// Leaked at both, confirmed at base (`isJudged`).
        case persisting
        /// Leaked at head, not (confirmed) at base, and `GateRule` found the key's own
        /// intermittence explains it (`Entry.evidence` says why); or runs disagree at base.
        case flaky
        /// Leaked at base, not checked at head.
        case notRun
        /// Released during the grace period at head: a warning.
        case lateRelease
        /// Would be new, but a suppression covers it.
        case suppressed
        /// Would be new, but the base had to fall back past commits without usable uploads and the
        /// base branch's own upload after the merge-base (`inheritedFrom`) shows it leaking: it most
        /// likely came in with the commits that had no data, not with this change. Shown, not failing.
        case inherited
        /// Would be new, but every check that leaked it at head leaked inside `withKnownIssue`:
        /// the team already knows of it. Shown, not failing.
        case known
        /// Leaked at head with no base to compare with: nothing says whether the change brought it
        /// in. Shown (a warning), not failing.
        case unverified
    }

    public struct Entry: Codable, Sendable, Hashable {
        public var category: Category
        public var scenario: String
        public var type: String
        public var file: String
        public var line: Int
        public var fingerprint: String?
        public var retainPath: [RetainPathStep]?
        public var message: String?
        /// The commit where the leak was first seen leaking on the base branch, when known.
        public var firstSeen: String?
        /// The reason of the suppression that covers it.
        public var suppressedBecause: String?
        /// The rule that covers it, or the expired rule that would have: shown next to it.
        public var suppression: SuppressionNote?
        /// For `inherited`: the base branch's commit after the merge-base that shows it leaking.
        public var inheritedFrom: String?
        /// When the base did not check the key, or its check there errored: the nearest first-parent
        /// ancestor of the base that checked it, whose state stood in for the base's.
        public var baseStateFrom: String?
        /// For a key `GateRule` judged (it leaked at head and not, confirmed, at base): the
        /// verdict's evidence and the sentence that explains it. On new and flaky entries, and on
        /// new ones a known issue, the base branch or a suppression moved.
        public var evidence: GateEvidence?

        public var key: LeakKey { LeakKey(scenario: scenario, type: type) }
    }

    /// What a suppression says about an entry it covers: which rule, why, until when, who
    /// added it; `expired` when the rule has lapsed and the leak counts again.
    public struct SuppressionNote: Codable, Sendable, Hashable {
        public var id: Int?
        public var reason: String
        /// ISO 8601, like every time on the wire.
        public var expiresAt: String?
        public var createdBy: String?
        public var expired: Bool

        public init(_ rule: LeakSuppression, now: Date) {
            id = rule.id
            reason = rule.reason
            expiresAt = rule.expiresAt.map(ReportTimestamp.string(from:))
            createdBy = rule.createdBy
            expired = !rule.isActive(at: now)
        }

        /// `#3 "known cache leak" (expires 2026-12-31, added by ana@example.com)`, or
        /// `#3 "…" (expired 2026-11-01, …)`: one wording for every output.
        public var summary: String {
            let day = expiresAt.map { String($0.prefix(10)) }
            var parts = [expired ? "expired \(day ?? "")" : day.map { "expires \($0)" } ?? "no expiry"]
            if let createdBy { parts.append("added by \(createdBy)") }
            return (id.map { "#\($0) " } ?? "") + "\"\(reason)\" (" + parts.joined(separator: ", ") + ")"
        }
    }

    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Classifies every key seen at base or head.
    /// - Parameters:
    ///   - evidence: what the gate knows of keys that leaked at head and not at base; a key
    ///     without is judged by its states alone (leaked at head: new; flaky at head: flaky).
    ///   - inherited: keys that the base branch shows leaking after the merge-base, when the base
    ///     had to fall back past commits without data, with the commit that shows each.
    ///   - suppressions: rules that move matching leaks out of "new".
    public init(base: [LeakKey: KeyObservation], head: [LeakKey: KeyObservation],
                evidence: [LeakKey: KeyEvidence] = [:], inherited: [LeakKey: String] = [:],
                suppressions: [LeakSuppression] = [], now: Date = Date()) {
        let keys = Set(base.keys).union(head.keys).map {
            KeyComparison(key: $0, base: base[$0], head: head[$0], evidence: evidence[$0], inheritedFrom: inherited[$0])
        }
        self = Self.classify(keys, suppressions: suppressions, now: now).diff
    }

    /// One key as both sides saw it (`classify(_:suppressions:now:)`).
    public struct KeyComparison: Sendable {
        public var key: LeakKey
        public var base: KeyObservation?
        public var head: KeyObservation?
        /// What the gate knows of a key that leaked at head and not at base (`GateRule.judge`).
        public var evidence: KeyEvidence?
        /// The base branch's commit after the merge-base that shows it leaking, when the base had
        /// to fall back past commits without data.
        public var inheritedFrom: String?
        /// False when the key leaked in every run at base but some attempt there released it
        /// (`isJudged`).
        public var baseConfirmed: Bool

        public init(key: LeakKey, base: KeyObservation?, head: KeyObservation?, evidence: KeyEvidence?, inheritedFrom: String?,
                    baseConfirmed: Bool = true) {
            self.key = key
            self.base = base
            self.head = head
            self.evidence = evidence
            self.inheritedFrom = inheritedFrom
            self.baseConfirmed = baseConfirmed
        }
    }

    /// `init(base:head:evidence:inherited:suppressions:now:)` over a list of keys, each once: the
    /// store keeps its dictionaries of a diff's few hundred keys by interned ids (integers to hash,
    /// not scenario and type names) and names each key here. `sources` holds each entry's index in
    /// `keys`, in the entries' order (sorted by key).
    public static func classify(_ keys: [KeyComparison], suppressions: [LeakSuppression] = [], now: Date = Date())
        -> (diff: LeakDiff, sources: [Int])
    {
        var entries: [Entry] = [], sources: [Int] = []
        for index in keys.indices.sorted(by: { keys[$0].key < keys[$1].key }) {
            let key = keys[index].key, before = keys[index].base, after = keys[index].head
            let judged = Self.isJudged(before: before?.state, after: after?.state, baseConfirmed: keys[index].baseConfirmed)
                ? keys[index].evidence.map { evidence in
                    GateRecorder.shared.record(key, evidence)
                    return GateRule.judge(evidence)
                } : nil
            guard var category = Self.category(before: before?.state, after: after?.state, verdict: judged?.verdict)
            else { continue }
            if category == .new, after?.knownIssue == true { category = .known }
            if category == .new, keys[index].inheritedFrom != nil { category = .inherited }
            let shown = Self.showsBaseCheck(before: before?.state, after: after?.state) ? before! : after!
            var entry = Entry(
                category: category, scenario: key.scenario, type: key.type, file: shown.file, line: shown.line,
                fingerprint: shown.fingerprint, retainPath: shown.retainPath, message: shown.message)
            entry.evidence = judged?.evidence
            if category == .inherited { entry.inheritedFrom = keys[index].inheritedFrom }
            if category == .new {
                let covering = suppressions.filter { $0.covers(key, fingerprint: shown.fingerprint) }
                if let rule = covering.first(where: { $0.isActive(at: now) }) {
                    entry.category = .suppressed
                    entry.suppressedBecause = rule.reason
                    entry.suppression = SuppressionNote(rule, now: now)
                } else if let expired = covering.last {
                    entry.suppression = SuppressionNote(expired, now: now)
                }
            }
            entries.append(entry)
            sources.append(index)
        }
        return (LeakDiff(entries: entries), sources)
    }

    /// No base to compare with: every key that leaked (or flaked) at head is `unverified`, late
    /// releases stay warnings.
    public init(unverifiedHead head: [LeakKey: KeyObservation]) {
        entries = head.keys.sorted().compactMap { key in
            let shown = head[key]!
            let category: Category
            switch shown.state {
            case .leaked, .flaky: category = .unverified
            case .lateRelease: category = .lateRelease
            case .clean, .error: return nil
            }
            return Entry(category: category, scenario: key.scenario, type: key.type, file: shown.file, line: shown.line,
                         fingerprint: shown.fingerprint, retainPath: shown.retainPath, message: shown.message)
        }
    }

    /// Whether a key's entry shows the base's check (file, line, fingerprint, …) rather than the
    /// head's: where the head has none (`notRun`, or not checked there) or a fixed leak's. The
    /// store reads the checks an entry can show, no others.
    public static func showsBaseCheck(before: KeyState?, after: KeyState?) -> Bool {
        guard let before else { return false }
        guard let after else { return true }
        return before == .leaked && (after == .clean || after == .error)
    }

    /// Whether `GateRule` judges a key: it leaked (or flaked) at head and not, confirmed, at base.
    /// The one rule of a base leak that hides the head's: leaked in every run at base
    /// (`before == .leaked`) and in every attempt there (`baseConfirmed`). A base leak that some
    /// attempt released is the key's intermittence — evidence the rule measures, not a state that
    /// makes a confirmed leak at head `persisting`.
    public static func isJudged(before: KeyState?, after: KeyState?, baseConfirmed: Bool) -> Bool {
        (after == .leaked || after == .flaky) && !(before == .leaked && baseConfirmed)
    }

    /// The category of a key from its states at base and head; nil when there is nothing to say
    /// (clean at both, or only errors). `verdict`: the rule's, for a key it judged (`isJudged`); without one a judged key is new
    /// when it leaked at head and the base never flaked, else flaky.
    static func category(before: KeyState?, after: KeyState?, verdict: GateRule.Verdict?) -> Category? {
        if let verdict { return verdict == .new ? .new : .flaky }
        if after == .flaky || before == .flaky { return .flaky }
        if after == .leaked { return before == .leaked ? .persisting : .new }
        if before == .leaked {
            if after == .clean || after == .lateRelease { return after == .lateRelease ? .lateRelease : .fixed }
            return .notRun
        }
        if after == .lateRelease { return .lateRelease }
        return nil
    }

    public func entries(in category: Category) -> [Entry] {
        entries.filter { $0.category == category }
    }

    public var counts: [Category: Int] {
        Dictionary(grouping: entries, by: \.category).mapValues(\.count)
    }

    /// New leaks fail a build; with `strict`, flaky ones do too.
    public func failsBuild(strict: Bool) -> Bool {
        entries.contains { $0.category == .new || (strict && $0.category == .flaky) }
    }
}
