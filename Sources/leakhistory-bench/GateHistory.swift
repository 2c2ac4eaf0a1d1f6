import LeakReport

/// A seeded project history shaped like the two real ones of issue 45, with its ground truth:
/// a main line of pushes and merged pull requests (chains of commits, some never built by CI),
/// real leaks coming and going in the code on any key, about a tenth of the keys leaking
/// intermittently over a stretch that starts mid-history, and every CI build in the order it
/// ran with the runs it uploaded per environment (re-runs, crashed, broken-harness and 1–3-check
/// filtered runs). Each check's confirmation attempts are drawn as LeakCheck makes them: a clean
/// first attempt ends the check; a leaked one is tried twice more, each leaking at the key's rate
/// (a real leak leaks every attempt). The same draws serve reports with and without attempts.
///
/// ```swift
/// let history = GateHistory(shape: .server)
/// for build in history.builds { for run in build.runs[0] { upload(run.checks(history, attempts: 3)) } }
/// ```
struct GateHistory {
    /// The shape of a project: its size, its merges, its CI.
    struct Shape {
        var name: String
        var seed: UInt64
        /// First-parent commits of main, merges included.
        var mainCommits: Int
        /// Keys a full run checks (one check each).
        var keys: Int
        /// Environments every build runs in (one run each, mostly).
        var environments = 1
        /// A main commit merges a pull request with this probability, else it is a direct push.
        var mergeShare: Double
        var pullRequestCommits: ClosedRange<Int>
        /// How many main commits behind the tip a pull request branches.
        var branchBack: ClosedRange<Int>
        /// Pull requests whose commits CI builds; the others (forks, merged without CI) only land.
        var builtPullRequests: Double
        /// Keys that leak intermittently, each over one stretch of main positions.
        var intermittentShare = 0.10
        /// The rates of intermittent keys, drawn uniformly: a few percent to about a third.
        var intermittentRates = [0.03, 0.05, 0.05, 0.08, 0.12, 0.2, 0.3, 0.3, 0.35]
        /// A stretch starts at this fraction of main's commits or later, and ends before it.
        var intermittentStart = 0.1...0.9
        /// A stretch lasts this many commits at least, and to the end of the history with the
        /// chance below; otherwise uniformly between the two.
        var intermittentMinimumCommits = 100
        var intermittentToTheEnd = 1.0 / 3
        /// A commit (a push or a pull-request commit) brings in a real leak with this probability.
        var introducePerCommit = 0.14
        /// Each real leak in the code is fixed by a given main commit with this probability.
        var fixPerCommit = 0.04
        /// A pull request's later commit fixes a leak an earlier one of it brought in.
        var fixInPullRequest = 0.5
        /// Builds that upload nothing.
        var skipMain = 0.1
        var skipPullRequest = 0.1
        /// The shapes of runs: each a few percent.
        var rerun = 0.04
        var crashedRun = 0.03
        var brokenHarnessRun = 0.02
        var filteredRun = 0.03
        /// A broken harness leaks almost every check.
        var brokenHarnessLeaks = 0.97
        var errorPerCheck = 0.003
        /// Confirmation attempts LeakCheck makes of a check that leaked, the first included.
        var attempts = 3

        /// A Swift server project: 1,500 first-parent commits, ~160 pull-request chains of 1–4
        /// commits branched from near the tip, most built; ~1.0M checks over two environments.
        static let server = Shape(name: "server project", seed: 4_501, mainCommits: 1_500, keys: 290, mergeShare: 0.107,
                                  pullRequestCommits: 1...4, branchBack: 0...3, builtPullRequests: 0.8)
        /// A reactive library: 2,350 first-parent commits, ~300 merges of branches of 2–8 commits
        /// branched up to 15 commits back, few of them built; ~1.5M checks over two environments.
        static let reactive = Shape(name: "reactive library", seed: 4_502, mainCommits: 2_350, keys: 320, mergeShare: 0.13,
                                    pullRequestCommits: 2...8, branchBack: 0...15, builtPullRequests: 0.15)
        /// What `--quick` runs: the server project's shape, small.
        static let quick = Shape(name: "quick", seed: 4_503, mainCommits: 40, keys: 30, mergeShare: 0.3,
                                 pullRequestCommits: 1...3, branchBack: 0...3, builtPullRequests: 0.8,
                                 intermittentMinimumCommits: 10)
    }

    /// One key's intermittence: it leaks in `rate` of its runs (at each attempt) at commits made
    /// while main had `from..<to` commits.
    struct Intermittence {
        var rate: Double
        var from: Int
        var to: Int
    }

    struct Key {
        var scenario: String
        var type: String
        var intermittence: Intermittence?
        var leakKey: LeakKey { LeakKey(scenario: scenario, type: type) }
    }

    struct Commit {
        var index: Int
        /// First parent first.
        var parents: [Int]
        var branch: String
        /// Keys whose real leak is in this commit's code.
        var leaks: Set<Int>
        /// How long main was when the commit was made.
        var mainPosition: Int
    }

    /// One run of the tests: what each key's check did.
    struct Run {
        enum Shape: String {
            case full, crashed, brokenHarness, filtered
        }

        /// A check's outcome with its attempts: `notChecked`, `error`, `clean`, or leaked in
        /// 1 to `attempts` attempts (a check whose first attempt leaked).
        static let notChecked: UInt8 = 255, error: UInt8 = 254, clean: UInt8 = 0

        var shape: Shape
        /// Per key: `notChecked`, `error`, `clean`, or the attempts that leaked.
        var states: [UInt8]

        func leaked(_ key: Int) -> Bool { states[key] != Self.clean && states[key] < Self.error }
        func checked(_ key: Int) -> Bool { states[key] < Self.error }

        /// Keys the run checked (not errored).
        var checkedKeys: [Int] { states.indices.filter(checked) }
        var leakedKeys: [Int] { states.indices.filter(leaked) }

        /// The run's checks as LeakCheck writes them: with `attempts` and `leakedAttempts` on
        /// leaked checks when it confirms with attempts, without when it does not (a report of a
        /// tool that makes one attempt: leaked when the first attempt leaked).
        func checks(_ keys: [Key], attempts: Int) -> [CheckRecord] {
            states.indices.compactMap { index in
                let state = states[index]
                guard state != Self.notChecked else { return nil }
                let key = keys[index]
                let outcome: CheckOutcome = state == Self.error ? .error : state == Self.clean ? .deallocated : .leaked
                let retainPath = outcome != .leaked ? nil : [
                    RetainPathStep(holder: "App.Coordinator\(index % 40)", property: "children[\(index % 3)]", kind: .strong),
                    RetainPathStep(holder: key.type, property: "onUpdate", kind: .closure),
                ]
                let confirmed = outcome == .leaked && attempts > 1
                return CheckRecord(scenario: key.scenario, file: "Tests/AppTests/Suite\(index % 12).swift", line: 10 + index,
                                   type: key.type, outcome: outcome, waitedMs: outcome == .leaked ? 2_000 : 3, timeoutMs: 2_000,
                                   retainPath: retainPath, fingerprint: outcome == .leaked ? "fp-\(index)" : nil,
                                   attempts: confirmed ? attempts : nil, leakedAttempts: confirmed ? Int(state) : nil)
            }
        }
    }

    /// One CI job at one commit: its runs in each environment, in the order they ran (a re-run
    /// is a second `leakhistory check`).
    struct Build {
        var commit: Int
        var isPullRequest: Bool
        /// Main's tip when the job ran: what its `--base main` named.
        var mainTip: Int
        /// For a pull request: where it branched from main.
        var mergeBase: Int?
        var runs: [[Run]]
    }

    let shape: Shape
    private(set) var keys: [Key] = []
    private(set) var commits: [Commit] = []
    private(set) var builds: [Build] = []
    private(set) var pullRequests = 0

    init(shape: Shape) {
        self.shape = shape
        var random = SplitMix64(seed: shape.seed)
        keys = (0..<shape.keys).map { index in
            var intermittence: Intermittence?
            if random.chance(shape.intermittentShare) {
                let rate = shape.intermittentRates[Int(random.next(below: UInt64(shape.intermittentRates.count)))]
                let span = shape.intermittentStart
                let from = Int(Double(shape.mainCommits) * (span.lowerBound + (span.upperBound - span.lowerBound) * random.unit()))
                let shortest = min(from + shape.intermittentMinimumCommits, shape.mainCommits)
                let to = random.chance(shape.intermittentToTheEnd)
                    ? shape.mainCommits : shortest + Int(Double(shape.mainCommits - shortest) * random.unit())
                intermittence = Intermittence(rate: rate, from: from, to: to)
            }
            return Key(scenario: "Suite\(index % 12)Tests/test\(index)()", type: "App.Model\(index)", intermittence: intermittence)
        }
        generate(&random)
    }

    /// The key's intermittence when a commit made at `mainPosition` runs, if it is in its stretch.
    func intermittentRate(_ key: Int, at mainPosition: Int) -> Double? {
        guard let stretch = keys[key].intermittence, (stretch.from..<stretch.to).contains(mainPosition) else { return nil }
        return stretch.rate
    }

    // MARK: generation

    private mutating func generate(_ random: inout SplitMix64) {
        commits.append(Commit(index: 0, parents: [], branch: "main", leaks: [], mainPosition: 0))
        addBuild(commit: 0, isPullRequest: false, mainTip: 0, mergeBase: nil, &random)
        var mainLine = [0]
        while mainLine.count < shape.mainCommits {
            let tip = mainLine.last!
            if random.chance(shape.mergeShare) {
                pullRequests += 1
                let back = min(Self.draw(shape.branchBack, &random), mainLine.count - 1)
                let branchPoint = mainLine[mainLine.count - 1 - back]
                let built = random.chance(shape.builtPullRequests)
                var parent = branchPoint
                var broughtIn: Set<Int> = []
                for _ in 0..<Self.draw(shape.pullRequestCommits, &random) {
                    var leaks = commits[parent].leaks
                    for key in broughtIn.sorted() where random.chance(shape.fixInPullRequest) {
                        leaks.remove(key)
                        broughtIn.remove(key)
                    }
                    if random.chance(shape.introducePerCommit), let key = randomCleanKey(leaks, &random) {
                        leaks.insert(key)
                        broughtIn.insert(key)
                    }
                    let commit = append(parents: [parent], branch: "pr-\(pullRequests)", leaks: leaks, at: mainLine.count)
                    if built, !random.chance(shape.skipPullRequest) {
                        addBuild(commit: commit, isPullRequest: true, mainTip: tip, mergeBase: branchPoint, &random)
                    }
                    parent = commit
                }
                // The merge: main's tip plus what the pull request changed since it branched.
                let changed = commits[parent].leaks, before = commits[branchPoint].leaks
                let leaks = commits[tip].leaks.union(changed.subtracting(before)).subtracting(before.subtracting(changed))
                mainLine.append(append(parents: [tip, parent], branch: "main", leaks: leaks, at: mainLine.count))
            } else {
                var leaks = commits[tip].leaks
                for key in leaks.sorted() where random.chance(shape.fixPerCommit) { leaks.remove(key) }
                if random.chance(shape.introducePerCommit), let key = randomCleanKey(leaks, &random) { leaks.insert(key) }
                mainLine.append(append(parents: [tip], branch: "main", leaks: leaks, at: mainLine.count))
            }
            if !random.chance(shape.skipMain) {
                addBuild(commit: mainLine.last!, isPullRequest: false, mainTip: mainLine.last!, mergeBase: nil, &random)
            }
        }
    }

    private static func draw(_ range: ClosedRange<Int>, _ random: inout SplitMix64) -> Int {
        range.lowerBound + Int(random.next(below: UInt64(range.count)))
    }

    private mutating func append(parents: [Int], branch: String, leaks: Set<Int>, at mainPosition: Int) -> Int {
        commits.append(Commit(index: commits.count, parents: parents, branch: branch, leaks: leaks, mainPosition: mainPosition))
        return commits.count - 1
    }

    /// Any key whose code does not leak now: a real leak starts on any key, also one that is
    /// intermittent at the moment or was before.
    private func randomCleanKey(_ leaks: Set<Int>, _ random: inout SplitMix64) -> Int? {
        let key = Int(random.next(below: UInt64(keys.count)))
        return leaks.contains(key) ? nil : key
    }

    private mutating func addBuild(commit: Int, isPullRequest: Bool, mainTip: Int, mergeBase: Int?, _ random: inout SplitMix64) {
        let runs = (0..<shape.environments).map { _ in
            var runs = [run(at: commit, &random)]
            // A broken harness is always re-run; otherwise now and then (a flaky test elsewhere).
            if runs[0].shape == .brokenHarness || random.chance(shape.rerun) { runs.append(run(at: commit, &random, allowBroken: false)) }
            return runs
        }
        builds.append(Build(commit: commit, isPullRequest: isPullRequest, mainTip: mainTip, mergeBase: mergeBase, runs: runs))
    }

    private func run(at commit: Int, _ random: inout SplitMix64, allowBroken: Bool = true) -> Run {
        let draw = random.unit()
        let shape: Run.Shape
        if allowBroken, draw < self.shape.brokenHarnessRun { shape = .brokenHarness }
        else if draw < self.shape.brokenHarnessRun + self.shape.crashedRun { shape = .crashed }
        else if draw < self.shape.brokenHarnessRun + self.shape.crashedRun + self.shape.filteredRun { shape = .filtered }
        else { shape = .full }
        var states = [UInt8](repeating: Run.notChecked, count: keys.count)
        var checked = Array(keys.indices)
        switch shape {
        case .crashed: checked = Array(checked.prefix(Int(Double(keys.count) * (0.3 + 0.6 * random.unit()))))
        case .filtered: checked = (0..<(1 + Int(random.next(below: 3)))).map { _ in Int(random.next(below: UInt64(keys.count))) }
        case .full, .brokenHarness: break
        }
        let attempts = self.shape.attempts
        for key in checked {
            if shape == .brokenHarness {
                states[key] = random.chance(self.shape.brokenHarnessLeaks) ? UInt8(attempts) : Run.clean
            } else if random.chance(self.shape.errorPerCheck) {
                states[key] = Run.error
            } else if commits[commit].leaks.contains(key) {
                states[key] = UInt8(attempts)
            } else if let rate = intermittentRate(key, at: commits[commit].mainPosition), random.chance(rate) {
                states[key] = UInt8(1 + (1..<attempts).filter { _ in random.chance(rate) }.count)
            } else {
                states[key] = Run.clean
            }
        }
        return Run(shape: shape, states: states)
    }

    // MARK: git

    /// The whole history as a `git fast-import` stream: `main`, and `pr-N` for each pull request.
    func fastImportStream() -> String {
        GitFastImport.stream(commits.map { ($0.branch, $0.parents) })
    }
}
