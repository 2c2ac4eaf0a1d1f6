/// The flaky rule: whether a key's history along a line of commits is evidence of an
/// intermittent leak rather than of changes of state.
///
/// ```swift
/// Intermittence.shows([.clean, .leaked, .clean, .leaked])     // true: a one-commit leak between clean ones
/// Intermittence.shows([.leaked, .leaked, .leaked, .clean, .clean, .clean, .leaked])  // false: fixed, stayed fixed, came back
/// ```
public enum Intermittence {
    /// A stretch of at least this many commits in one state (leaking, or clean between leaks)
    /// is a real change of state: a leak that stayed, or a fix that held.
    public static let stableCommits = 3

    /// True when the line (oldest first; nil where a commit did not check the key) has a commit
    /// whose runs disagreed, or a stretch of fewer than `stableCommits` commits between two of
    /// the other state — a brief leak between clean commits, or a brief clean spell between
    /// leaks: at least two transitions either way. Commits that only errored are skipped.
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
            if current != nil, bounded, length < stableCommits { return true }
            bounded = current != nil
            current = leaking
            length = 1
        }
        return false
    }
}
