import LeakReport

/// The counts of a run's outcomes, and whether the run looks like a broken harness.
struct RunTally: Sendable {
    var checks = 0
    var leaked = 0
    var lateRelease = 0
    var errors = 0

    init(_ records: [CheckRecord]) {
        checks = records.count
        for record in records {
            switch record.storedOutcome {
            case .leaked: leaked += 1
            case .lateRelease: lateRelease += 1
            case .error: errors += 1
            case .deallocated: break
            }
        }
    }

    /// Fewer checks than this never make a run suspect: in a small project every check leaking
    /// is as likely to be real leaks as a broken harness.
    static let suspectMinimumChecks = 20

    /// At least `suspectMinimumChecks` checks, and more than 80% of them leaked or ended in an error.
    var suspect: Bool { checks >= Self.suspectMinimumChecks && (leaked + errors) * 5 > checks * 4 }
}
