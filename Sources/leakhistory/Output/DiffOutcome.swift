import LeakReport

/// A finished comparison, ready to print: the diff, which commits it compared and how the base
/// was found, and the exit code it leads to.
struct DiffOutcome: Sendable {
    struct BaseChoice: Codable, Sendable {
        var commit: String
        /// First-parent steps from the merge-base; 0 is the merge-base itself.
        var distance: Int
        var mergeBase: String?
        /// The base branch's nearest upload after the merge-base (else, when the base fell back, the
        /// newest upload of a branch that the commits without data merged), asked about inherited leaks.
        var after: String?
        /// True on the base branch itself: `mergeBase` is HEAD's first parent.
        var onBaseBranch: Bool?
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
    /// The head's suspect runs: they fail the build with their own message.
    var suspectRuns: [DiffResponse.SuspectRun] = []
    /// The dashboard's page for this comparison; nil for a local comparison.
    var dashboardURL: String?
    /// The repository's top folder: SARIF and annotations name files relative to it.
    var repositoryRoot: String?

    init(environment: String, base: BaseChoice?, head: String, diff: LeakDiff, strict: Bool, ifNoBase: String,
         baseLabel: String? = nil, headLabel: String? = nil, suspectRuns: [DiffResponse.SuspectRun] = [],
         dashboardURL: String? = nil, repositoryRoot: String? = nil) {
        self.environment = environment
        self.base = base
        self.head = head
        self.diff = diff
        self.strict = strict
        self.ifNoBase = ifNoBase
        self.baseLabel = baseLabel
        self.headLabel = headLabel
        self.suspectRuns = suspectRuns
        self.dashboardURL = dashboardURL
        self.repositoryRoot = repositoryRoot
    }

    /// Nothing to compare with: no ancestor had data.
    var hasNoBase: Bool { base == nil && baseLabel == nil }

    var exitCode: ExitCode {
        if !suspectRuns.isEmpty { return .newLeaks }
        if hasNoBase { return ifNoBase == "fail" ? .unavailable : .success }
        return diff.failsBuild(strict: strict) ? .newLeaks : .success
    }

    /// Why a suspect head fails, one line a run: what happened and what to do.
    var suspectMessages: [String] {
        suspectRuns.map { run in
            let bad = run.leaked + run.errors
            let what = run.errors == 0 ? "leaked" : run.leaked == 0 ? "errored" : "leaked or errored"
            return "run \(run.runID): \(bad) of \(run.checks) checks \(what) — every check leaking usually means the harness broke (a crash in set-up, a retained test host, a global that holds everything) rather than \(bad) separate leaks. Its leaks are listed; fix the cause and run again."
        }
    }

    var baseDescription: String {
        if let baseLabel { return baseLabel }
        guard let base else { return "none" }
        let start = base.onBaseBranch == true ? "HEAD's first parent" : "the merge-base"
        let distance = base.distance == 0 ? start : "\(base.distance) first-parent commit\(base.distance == 1 ? "" : "s") before \(start) \(base.mergeBase.map(short) ?? ""), which has no upload"
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
