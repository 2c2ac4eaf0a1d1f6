extension LeakDiff.Category {
    /// The order every output lists categories in: what fails a build first.
    public static let printOrder: [LeakDiff.Category] = [.new, .flaky, .persisting, .notRun, .fixed, .lateRelease, .suppressed]

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
        }
    }
}
