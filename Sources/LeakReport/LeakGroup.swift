/// The leaks of one category that share a root cause: entries with the same fingerprint, shown
/// as one row, one annotation, one SARIF result. An entry without a fingerprint is a group of
/// its own.
///
/// ```swift
/// for group in diff.groups where group.category == .new {
///     print("\(group.types.joined(separator: ", ")) in \(group.scenarios.count) scenarios at \(group.file):\(group.line)")
/// }
/// ```
public struct LeakGroup: Codable, Sendable, Hashable {
    /// One key of the group, and where its check was written.
    public struct Occurrence: Codable, Sendable, Hashable {
        public var scenario: String
        public var type: String
        public var file: String
        public var line: Int
    }

    public var category: LeakDiff.Category
    /// Nil for a lone entry whose check reported none.
    public var fingerprint: String?
    /// The distinct leaked types, sorted.
    public var types: [String]
    /// The distinct scenarios, sorted.
    public var scenarios: [String]
    /// Where the first occurrence (by file, then line) was checked: where an annotation goes.
    public var file: String
    public var line: Int
    /// The retain path, once: the first occurrence's proven one, else the first possible one.
    public var retainPath: [RetainPathStep]?
    /// The type at the end of `retainPath`.
    public var pathType: String?
    /// The commit where the group first leaked on the base branch, when known.
    public var firstSeen: String?
    /// The first occurrence's failure message.
    public var message: String?
    /// For `inherited`: the base branch's commit after the merge-base that shows it leaking.
    public var inheritedFrom: String?
    /// The suppression that covers it (or lapsed), when one does.
    public var suppression: LeakDiff.SuppressionNote?
    /// The gate's evidence for the first occurrence it judged (`LeakDiff.Entry.evidence`): why the
    /// group is new or flaky. Each entry carries its own.
    public var evidence: GateEvidence?
    /// Every key of the group, the first occurrence first.
    public var occurrences: [Occurrence]

    /// The occurrences after the first: what an annotation at the first one lists.
    public var others: ArraySlice<Occurrence> { occurrences.dropFirst() }

    /// Groups `entries` by category (in `LeakDiff.Category.printOrder`), then by fingerprint;
    /// within a category, groups come in the order of their first entry.
    public static func grouping(_ entries: [LeakDiff.Entry]) -> [LeakGroup] {
        var result: [LeakGroup] = []
        for category in LeakDiff.Category.printOrder {
            var order: [String] = []
            var byRoot: [String: [LeakDiff.Entry]] = [:]
            for (index, entry) in entries.enumerated() where entry.category == category {
                // A lone entry gets a key no fingerprint can have.
                let root = entry.fingerprint.map { "f:" + $0 } ?? "e:\(index)"
                if byRoot[root] == nil { order.append(root) }
                byRoot[root, default: []].append(entry)
            }
            result += order.map { LeakGroup(category: category, entries: byRoot[$0]!) }
        }
        return result
    }

    init(category: LeakDiff.Category, entries: [LeakDiff.Entry]) {
        let sorted = entries.sorted { ($0.file, $0.line, $0.scenario, $0.type) < ($1.file, $1.line, $1.scenario, $1.type) }
        let first = sorted[0]
        let withPath = sorted.first { RetainPathStep.isProven($0.retainPath ?? []) }
            ?? sorted.first { !($0.retainPath ?? []).isEmpty }
        self.category = category
        fingerprint = first.fingerprint
        types = Array(Set(sorted.map(\.type))).sorted()
        scenarios = Array(Set(sorted.map(\.scenario))).sorted()
        file = first.file
        line = first.line
        retainPath = withPath?.retainPath
        pathType = withPath?.type
        firstSeen = first.firstSeen ?? sorted.lazy.compactMap(\.firstSeen).first
        message = first.message
        inheritedFrom = sorted.lazy.compactMap(\.inheritedFrom).first
        suppression = sorted.lazy.compactMap(\.suppression).first
        evidence = sorted.lazy.compactMap(\.evidence).first
        occurrences = sorted.map { Occurrence(scenario: $0.scenario, type: $0.type, file: $0.file, line: $0.line) }
    }

    /// The retain path as people read it (`RetainPathStep.readable`, a possible one marked so), or
    /// nil when no occurrence reported one.
    public var readablePath: String? {
        guard let retainPath, let pathType else { return nil }
        return RetainPathStep.readable(retainPath, leakedType: pathType)
    }

    /// `App.Cache in CacheTests/evict()`, or `App.Cache, App.Store in 3 scenarios`.
    public var title: String {
        let what = types.joined(separator: ", ")
        return scenarios.count == 1 ? "\(what) in \(scenarios[0])" : "\(what) in \(scenarios.count) scenarios"
    }
}

extension LeakGroup {
    /// `5 in 2 root causes`, or `3` when every leak is its own root cause: a section's size,
    /// worded once for every output.
    public static func tally(_ groups: [LeakGroup]) -> String {
        let leaks = groups.reduce(0) { $0 + $1.occurrences.count }
        return leaks == groups.count ? "\(leaks)" : "\(leaks) in \(groups.count) root cause\(groups.count == 1 ? "" : "s")"
    }
}

extension LeakDiff {
    /// The entries grouped by root cause, categories in print order.
    public var groups: [LeakGroup] { LeakGroup.grouping(entries) }
}
