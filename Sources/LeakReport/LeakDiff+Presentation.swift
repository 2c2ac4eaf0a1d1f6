extension LeakDiff.Category {
    /// The order every output lists categories in: what fails a build first.
    public static let printOrder: [LeakDiff.Category] = [
        .new, .unverified, .flaky, .persisting, .inherited, .known, .notRun, .fixed, .lateRelease, .suppressed,
    ]

    /// The heading of the category's section.
    public var heading: String {
        switch self {
        case .new: "New leaks"
        case .flaky: "Flaky"
        case .persisting: "Persisting"
        case .notRun: "Leaked at base, not checked at head"
        case .fixed: "Fixed"
        case .lateRelease: "Late releases (warnings)"
        case .suppressed: "Suppressed"
        case .inherited: "Inherited (leaks on the base branch; came in with commits that have no upload)"
        case .known: "Known issues (leaked inside withKnownIssue)"
        case .unverified: "Leaks at head, unverified (no base to compare with)"
        }
    }

    /// The category in a count: `3 new`, `1 not run`.
    public var countLabel: String {
        switch self {
        case .new: "new"
        case .flaky: "flaky"
        case .persisting: "persisting"
        case .notRun: "not run"
        case .fixed: "fixed"
        case .lateRelease: "late releases"
        case .suppressed: "suppressed"
        case .inherited: "inherited"
        case .known: "known"
        case .unverified: "unverified"
        }
    }
}
