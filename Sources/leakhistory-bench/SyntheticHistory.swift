import LeakReport

/// A seeded, generated project history with its ground truth: a main line of direct pushes and
/// merged pull requests, the stable leaks each commit's code has (introduced, fixed and brought
/// back), intermittent keys at several rates, and every CI build in the order it ran, with the
/// runs it uploaded (re-runs, partial and crashed runs, errored checks, broken-harness runs,
/// commits without uploads).
///
/// The same seed gives the same history (every draw walks sets in sorted order: a `Set`'s own
/// order changes from one process to the next). `gate` judges every build with the real CLI; a
/// realistic queries benchmark can upload the same runs (`Build.runs`) and query them.
///
/// ```swift
/// let history = SyntheticHistory(options: .full)
/// try shell(["git", "fast-import", "--export-marks=marks"], input: history.fastImportStream())
/// for build in history.builds { for run in build.runs { upload(run.checks(history.keys)) } }
/// ```
struct SyntheticHistory {
    struct Options {
        var seed: UInt64 = 11
        /// Commits on main, merges included.
        var mainCommits = 1_000
        /// Keys checked by a full run (one check each).
        var keys = 120
        /// When set (and below `keys`), a full run checks this many stable keys: a window that
        /// slides over the keys as main grows, as tests are added and removed over a project's
        /// life. Intermittent keys are always checked.
        var checkedKeys: Int? = nil
        /// Intermittent keys, active from the first commit: two at each rate.
        var intermittentRates: [Double] = [0.05, 0.05, 0.2, 0.2, 0.5, 0.5]
        /// Intermittent keys that start at a random commit (their first leak is a first occurrence).
        var lateIntermittentRates: [Double] = [0.05, 0.2]
        /// A main commit is a merged pull request with this probability, else a direct push.
        var pullRequestShare = 0.35
        /// A direct push (or a pull-request commit) brings in a stable leak with this probability.
        var introduceOnPush = 0.04
        var introduceOnPullRequest = 0.12
        /// Each stable leak in the code is fixed by a given commit on main with this probability.
        var fixPerCommit = 0.04
        /// A pull request's later commit fixes the leak an earlier one brought in.
        var fixInPullRequest = 0.5
        /// Builds that upload nothing (CI skipped or failed before the tests).
        var skipMain = 0.12
        var skipPullRequest = 0.05
        var rerun = 0.06
        var partialRun = 0.04
        var crashedRun = 0.03
        var brokenHarnessRun = 0.01
        var errorPerCheck = 0.005

        static let full = Options()
        static let quick = Options(mainCommits: 16, keys: 30)
    }

    enum KeyKind: Equatable {
        /// Leaks exactly when the code has it (`Commit.stableLeaks`).
        case stable
        /// Leaks in a fraction of the runs, from `activeFrom` (a commit index) on.
        case intermittent(rate: Double, activeFrom: Int)
    }

    struct Key {
        var scenario: String
        var type: String
        var kind: KeyKind
        var leakKey: LeakKey { LeakKey(scenario: scenario, type: type) }
    }

    struct Commit {
        /// `git fast-import` mark: the index plus one.
        var mark: Int { index + 1 }
        var index: Int
        /// First parent first.
        var parents: [Int]
        var branch: String
        /// Stable keys that leak in this commit's code.
        var stableLeaks: Set<Int>
        /// How long main was when the commit was made.
        var mainPosition = 0
    }

    /// What one run of the tests did: each checked key's outcome (a missing key was not checked).
    struct Run {
        enum Shape: String, CaseIterable {
            case full, partial, crashed, brokenHarness
        }
        var shape: Shape
        var outcomes: [Int: CheckOutcome]

        /// The run's checks, in key order, as LeakCheck would write them: a leak with the retain
        /// path LeakCheck found (the leaked object held by a closure its owner stores).
        func checks(_ keys: [Key]) -> [CheckRecord] {
            outcomes.keys.sorted().map { index in
                let key = keys[index]
                let outcome = outcomes[index]!
                let retainPath = outcome != .leaked ? nil : [
                    RetainPathStep(holder: "App.Coordinator\(index % 40)", property: "children[\(index % 3)]", kind: .strong),
                    RetainPathStep(holder: key.type, property: "onUpdate", kind: .closure),
                ]
                return CheckRecord(scenario: key.scenario, file: "Tests/AppTests/Suite\(index % 12).swift", line: 10 + index,
                                   type: key.type, outcome: outcome, waitedMs: outcome == .leaked ? 2_000 : 3, timeoutMs: 2_000,
                                   retainPath: retainPath, fingerprint: outcome == .leaked ? "fp-\(index)" : nil)
            }
        }
    }

    /// One CI job at one commit: one `leakhistory check` per run (a re-run is a second one).
    struct Build {
        var commit: Int
        /// True for a pull-request commit, false for a commit on main.
        var isPullRequest: Bool
        /// The main commit the job's `--base main` named when it ran (main's tip then).
        var mainTip: Int
        /// For a pull request: where it branched from main.
        var mergeBase: Int?
        var runs: [Run]
    }

    let options: Options
    private(set) var keys: [Key] = []
    private(set) var commits: [Commit] = []
    /// Every build in the order CI ran them; a skipped build is absent.
    private(set) var builds: [Build] = []

    init(options: Options) {
        self.options = options
        var random = SplitMix64(seed: options.seed)
        let late = options.lateIntermittentRates.map { rate in (rate, Int(random.next(below: UInt64(max(options.mainCommits, 2))))) }
        let intermittent = options.intermittentRates.map { ($0, 0) } + late
        keys = (0..<options.keys).map { index in
            let kind: KeyKind = index < intermittent.count
                ? .intermittent(rate: intermittent[index].0, activeFrom: intermittent[index].1) : .stable
            return Key(scenario: "Suite\(index % 12)Tests/test\(index)()", type: "App.Model\(index)", kind: kind)
        }
        generate(&random)
    }

    // MARK: generation

    private mutating func generate(_ random: inout SplitMix64) {
        commits.append(Commit(index: 0, parents: [], branch: "main", stableLeaks: []))
        addBuild(commit: 0, isPullRequest: false, mainTip: 0, mergeBase: nil, &random)
        var mainLine = [0]
        var pullRequests = 0
        while mainLine.count < options.mainCommits {
            let tip = mainLine.last!
            if random.chance(options.pullRequestShare) {
                pullRequests += 1
                // Branched from main's tip or up to 3 commits before it, so main moved on meanwhile.
                let back = min(Int(random.next(below: 4)), mainLine.count - 1)
                let branchPoint = mainLine[mainLine.count - 1 - back]
                var parent = branchPoint
                var broughtIn: Set<Int> = []
                for _ in 0..<(1 + Int(random.next(below: 3))) {
                    var leaks = commits[parent].stableLeaks
                    for key in broughtIn.sorted() where random.chance(options.fixInPullRequest) {
                        leaks.remove(key)
                        broughtIn.remove(key)
                    }
                    if random.chance(options.introduceOnPullRequest), let key = randomCleanStableKey(leaks, &random) {
                        leaks.insert(key)
                        broughtIn.insert(key)
                    }
                    if let key = leaks.sorted().randomElement(using: &random), random.chance(options.fixPerCommit) { leaks.remove(key) }
                    let commit = append(parents: [parent], branch: "pr-\(pullRequests)", leaks: leaks, at: mainLine.count)
                    if !random.chance(options.skipPullRequest) {
                        addBuild(commit: commit, isPullRequest: true, mainTip: tip, mergeBase: branchPoint, &random)
                    }
                    parent = commit
                }
                // The merge: main's tip plus what the pull request changed since it branched.
                let changed = commits[parent].stableLeaks, before = commits[branchPoint].stableLeaks
                let leaks = commits[tip].stableLeaks.union(changed.subtracting(before)).subtracting(before.subtracting(changed))
                let merge = append(parents: [tip, parent], branch: "main", leaks: leaks, at: mainLine.count)
                mainLine.append(merge)
            } else {
                var leaks = commits[tip].stableLeaks
                for key in leaks.sorted() where random.chance(options.fixPerCommit) { leaks.remove(key) }
                if random.chance(options.introduceOnPush), let key = randomCleanStableKey(leaks, &random) { leaks.insert(key) }
                mainLine.append(append(parents: [tip], branch: "main", leaks: leaks, at: mainLine.count))
            }
            if !random.chance(options.skipMain) {
                addBuild(commit: mainLine.last!, isPullRequest: false, mainTip: mainLine.last!, mergeBase: nil, &random)
            }
        }
    }

    private mutating func append(parents: [Int], branch: String, leaks: Set<Int>, at mainPosition: Int) -> Int {
        commits.append(Commit(index: commits.count, parents: parents, branch: branch, stableLeaks: leaks, mainPosition: mainPosition))
        return commits.count - 1
    }

    /// A stable key not leaking now; a key that leaked before and was fixed may come back.
    private func randomCleanStableKey(_ leaks: Set<Int>, _ random: inout SplitMix64) -> Int? {
        let candidates = keys.indices.filter { keys[$0].kind == .stable && !leaks.contains($0) }
        return candidates.randomElement(using: &random)
    }

    private mutating func addBuild(commit: Int, isPullRequest: Bool, mainTip: Int, mergeBase: Int?, _ random: inout SplitMix64) {
        var runs = [run(at: commit, &random)]
        // A broken harness is always re-run; otherwise now and then (a flaky test elsewhere).
        if runs[0].shape == .brokenHarness || random.chance(options.rerun) { runs.append(run(at: commit, &random, allowBroken: false)) }
        builds.append(Build(commit: commit, isPullRequest: isPullRequest, mainTip: mainTip, mergeBase: mergeBase, runs: runs))
    }

    private func run(at commit: Int, _ random: inout SplitMix64, allowBroken: Bool = true) -> Run {
        let draw = random.unit()
        let shape: Run.Shape
        if allowBroken, draw < options.brokenHarnessRun { shape = .brokenHarness }
        else if draw < options.brokenHarnessRun + options.partialRun { shape = .partial }
        else if draw < options.brokenHarnessRun + options.partialRun + options.crashedRun { shape = .crashed }
        else { shape = .full }
        let crashAt = Int(Double(keys.count) * (0.3 + 0.6 * random.unit()))
        var outcomes: [Int: CheckOutcome] = [:]
        let window = checkedWindow(at: commit)
        for index in keys.indices {
            if let window, keys[index].kind == .stable, !window.contains(index) { continue }
            switch shape {
            case .partial where !random.chance(0.7): continue
            case .crashed where index >= crashAt: continue
            default: break
            }
            if shape == .brokenHarness {
                outcomes[index] = .leaked
            } else if random.chance(options.errorPerCheck) {
                outcomes[index] = .error
            } else {
                outcomes[index] = leaks(index, at: commit, &random) ? .leaked : .deallocated
            }
        }
        return Run(shape: shape, outcomes: outcomes)
    }

    /// The stable keys a full run at the commit checks, when `checkedKeys` narrows them.
    private func checkedWindow(at commit: Int) -> Range<Int>? {
        guard let checked = options.checkedKeys, checked < keys.count else { return nil }
        let offset = (keys.count - checked) * min(commits[commit].mainPosition, options.mainCommits) / max(options.mainCommits, 1)
        return offset..<(offset + checked)
    }

    private func leaks(_ key: Int, at commit: Int, _ random: inout SplitMix64) -> Bool {
        switch keys[key].kind {
        case .stable: commits[commit].stableLeaks.contains(key)
        case let .intermittent(rate, activeFrom): commit >= activeFrom && random.chance(rate)
        }
    }

    // MARK: git

    /// The whole history as a `git fast-import` stream: `main`, and `pr-N` for each pull request.
    func fastImportStream() -> String {
        GitFastImport.stream(commits.map { ($0.branch, $0.parents) })
    }
}
