/// The flaky rule: whether a key's history along a line of commits is evidence of an
/// intermittent leak rather than of changes of state.
///
/// ```swift
/// Intermittence.shows([.clean, .leaked, .clean, .leaked])     // true: a one-commit leak between clean ones
/// Intermittence.shows([.leaked, .leaked, .clean, .clean, .clean, .leaked])  // false: fixed, stayed fixed, came back
/// ```
public enum Intermittence {
    /// A leak seen at this many commits in a row was a real leak: its end is a fix, not
    /// intermittence. (A leak that shows in a fraction of runs mostly shows at one commit.)
    public static let leakHeldCommits = 2
    /// A fix that held for this many commits in a row was a real fix: a leak coming back after
    /// it is new (a regression), not intermittence.
    public static let fixHeldCommits = 3

    /// True when the line (oldest first; nil where a commit did not check the key) has a commit
    /// whose runs disagreed, a leak at fewer than `leakHeldCommits` commits between clean ones, or
    /// a clean spell of fewer than `fixHeldCommits` commits between leaks: at least two
    /// transitions either way. Commits that only errored are skipped.
    public static func shows<S: Sequence>(_ line: S) -> Bool where S.Element == KeyState? {
        var current: Bool?          // leaking in the current stretch?
        var length = 0
        var bounded = false         // the current stretch has the other state before it
        for state in line {
            let leaking: Bool
            switch state {
            case .flaky?: return true
            case .leaked?: leaking = true
            case .clean?, .lateRelease?: leaking = false
            case .error?, nil: continue
            }
            if leaking == current {
                length += 1
                continue
            }
            if let wasLeaking = current, bounded, length < (wasLeaking ? leakHeldCommits : fixHeldCommits) { return true }
            bounded = current != nil
            current = leaking
            length = 1
        }
        return false
    }
}
