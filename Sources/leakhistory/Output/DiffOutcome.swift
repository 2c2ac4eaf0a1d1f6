import LeakReport

/// A finished comparison, ready to print: the diff, which commits it compared and how the base
/// was found, and the exit code it leads to.
struct DiffOutcome: Sendable {
    struct BaseChoice: Codable, Sendable {
        var commit: String
        /// First-parent steps from the merge-base; 0 is the merge-base itself.
        var distance: Int
        var mergeBase: String?
    }

    var environment: String
    /// Nil when no ancestor had data: the result then says so rather than passing silently.
    var base: BaseChoice?
    var head: String
    var diff: LeakDiff
    var strict: Bool
    /// `pass`, `warn` or `fail`: what a missing base means.
    var ifNoBase: String
    /// Labels for local comparisons: the two report files.
    var baseLabel: String?
    var headLabel: String?
    /// The dashboard's page for this comparison; nil for a local comparison.
    var dashboardURL: String? = nil
    /// The repository's top folder: SARIF names files relative to it.
    var repositoryRoot: String? = nil

    var exitCode: ExitCode {
        if base == nil && baseLabel == nil { return ifNoBase == "fail" ? .unavailable : .success }
        return diff.failsBuild(strict: strict) ? .newLeaks : .success
    }

    var baseDescription: String {
        if let baseLabel { return baseLabel }
        guard let base else { return "none" }
        let distance = base.distance == 0 ? "the merge-base" : "\(base.distance) first-parent commit\(base.distance == 1 ? "" : "s") before the merge-base \(base.mergeBase.map(short) ?? "")"
        return "\(short(base.commit)) (\(distance))"
    }

    var headDescription: String { headLabel ?? short(head) }

    func short(_ sha: String) -> String { String(sha.prefix(10)) }

    /// `file` relative to the repository's top folder when it lies inside it (as code
    /// scanning and annotations want it), else as it is.
    func relativePath(_ file: String) -> String {
        guard let root = repositoryRoot, !root.isEmpty else { return file }
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return file.hasPrefix(prefix) ? String(file.dropFirst(prefix.count)) : file
    }
}
