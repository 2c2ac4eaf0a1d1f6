import Foundation
import LeakReport

/// The history `leakhistory-bench queries` uploads and queries, by
/// `LEAKHISTORY_BENCH_QUERIES_SHAPE`: `synthetic` (the default: a `SyntheticHistory`, ~300
/// checks a run over 400 keys) or `reactive` (the gate bench's merge-heavy reactive library,
/// `GateHistory.Shape.reactive`, made longer: the same shape at more commits). Either generator
/// owns its shape; this only reads its commits, builds and runs the same way for both, and walks
/// its commit graph as `git` does for `leakhistory check`.
///
/// ```swift
/// let history = try QueriesHistory(named: "reactive", checks: 10_000_000)
/// let runs = history.runs(ofBuild: 0, environment: 1)
/// ```
struct QueriesHistory {
    enum Source {
        case synthetic(SyntheticHistory)
        case reactive(GateHistory)
    }

    struct Commit {
        /// First parent first.
        var parents: [Int]
        var branch: String
    }

    /// One CI job at one commit, as the generator ran it (every build runs in every environment).
    struct Build {
        var index: Int
        var commit: Int
        var isPullRequest: Bool
        /// Main's tip when the job ran: what `leakhistory check --base main` named.
        var mainTip: Int
        /// For a pull request: where it branched from main (`git merge-base` of it and `mainTip`:
        /// neither generator merges main into a branch).
        var mergeBase: Int?
    }

    static let environments = ["linux-swift6.3", "macos-swift6.3"]
    static let shapeVariable = "LEAKHISTORY_BENCH_QUERIES_SHAPE"
    /// The reactive history held 1.56M checks over 2,358 first-parent commits in 2
    /// environments: about this many checks a main commit.
    static let reactiveChecksPerMainCommit = 660.0

    let source: Source
    let commits: [Commit]
    let builds: [Build]
    /// Every key's scenario and type, in the generator's order.
    let keys: [(scenario: String, type: String)]
    /// What the queries table's title says of the history.
    let summary: String

    /// The history named by `LEAKHISTORY_BENCH_QUERIES_SHAPE`, long enough for `checks` stored
    /// checks with room to spare.
    static func requested(checks: Int) throws -> QueriesHistory {
        let name = ProcessInfo.processInfo.environment[shapeVariable] ?? "synthetic"
        guard let history = QueriesHistory(named: name, checks: checks) else {
            throw BenchError("\(shapeVariable)=\(name): expected synthetic or reactive; unset it for the default (synthetic).")
        }
        return history
    }

    init?(named name: String, checks: Int) {
        switch name {
        case "synthetic":
            // About 1.6 builds a main commit, ~1.07 runs a build, ~300 checks a run, in each environment.
            let perMainCommit = 1.6 * 1.07 * Double(QueriesBenchmark.checkedKeys) * Double(Self.environments.count)
            let mainCommits = max(20, Int(Double(checks) * 1.3 / perMainCommit))
            self.init(.synthetic(SyntheticHistory(options: .init(mainCommits: mainCommits, keys: QueriesBenchmark.keys,
                                                                 checkedKeys: QueriesBenchmark.checkedKeys))))
        case "reactive":
            var shape = GateHistory.Shape.reactive
            shape.mainCommits = max(40, Int(Double(checks) * 1.3 / Self.reactiveChecksPerMainCommit))
            shape.environments = Self.environments.count
            self.init(.reactive(GateHistory(shape: shape)))
        default:
            return nil
        }
    }

    private init(_ source: Source) {
        self.source = source
        switch source {
        case let .synthetic(history):
            (commits, builds) = Self.graph(history.commits, history.builds)
            keys = history.keys.map { ($0.scenario, $0.type) }
            summary = "a realistic history (SyntheticHistory): \(history.options.mainCommits) main commits planned with merged "
                + "pull requests, ~\(QueriesBenchmark.checkedKeys) checks a run over \(history.keys.count) keys, re-runs, intermittent keys"
        case let .reactive(history):
            (commits, builds) = Self.graph(history.commits, history.builds)
            keys = history.keys.map { ($0.scenario, $0.type) }
            summary = "a merge-heavy history (the gate's reactive library, GateHistory): \(history.shape.mainCommits) first-parent "
                + "commits planned, \(history.pullRequests) merges of branches of 2–8 commits branched up to 15 back, "
                + "\(history.keys.count) keys a full run, intermittent keys, re-runs, broken and partial runs, 3 attempts"
        }
    }

    /// A generator's commits and builds, read alike.
    private static func graph(_ commits: [some GeneratedCommit], _ builds: [some GeneratedBuild]) -> ([Commit], [Build]) {
        (commits.map { Commit(parents: $0.parents, branch: $0.branch) },
         builds.enumerated().map { index, build in
             Build(index: index, commit: build.commit, isPullRequest: build.isPullRequest, mainTip: build.mainTip,
                   mergeBase: build.mergeBase)
         })
    }

    /// The build's runs in one environment, in the order they ran, each as the checks it uploaded.
    func runs(ofBuild build: Int, environment: Int) -> [[CheckRecord]] {
        switch source {
        case let .synthetic(history):
            // SyntheticHistory runs a build alike in every environment.
            history.builds[build].runs.map { $0.checks(history.keys) }
        case let .reactive(history):
            history.builds[build].runs[environment].map { $0.checks(history.keys, attempts: history.shape.attempts) }
        }
    }

    // MARK: the commit graph as git walks it

    /// How far below the commits it compares a walk looks. Both generators merge a branch at most
    /// tens of commits after it branched, so a commit this much older than both ends is reachable
    /// from both or from neither: the walks stay short at 10M checks (25,000 commits).
    static let walkDepth = 2_000

    /// `git rev-list --first-parent --max-count=limit commit`: nearest first.
    func firstParentLine(from commit: Int, limit: Int) -> [Int] {
        var line: [Int] = []
        var current: Int? = commit
        while let index = current, line.count < limit {
            line.append(index)
            current = commits[index].parents.first
        }
        return line
    }

    /// `git rev-list --first-parent --reverse tip ^ancestor`, at most `limit` of the oldest and
    /// `limit` of the newest (`GitRepository.firstParentCommits`).
    func firstParentCommits(of tip: Int, after ancestor: Int, limit: Int) -> [Int] {
        let excluded = ancestors(of: ancestor, downTo: min(tip, ancestor) - Self.walkDepth)
        var line: [Int] = []
        var current: Int? = tip
        while let index = current, !excluded.contains(index), index >= ancestor - Self.walkDepth {
            line.append(index)
            current = commits[index].parents.first
        }
        let all = Array(line.reversed())
        return all.count <= 2 * limit ? all : Array(all.prefix(limit) + all.suffix(limit))
    }

    /// `git rev-list --max-count=limit tip ^ancestor`: every parent followed, newest first (a
    /// commit's index is its date's order).
    func commits(of tip: Int, notIn ancestor: Int, limit: Int) -> [Int] {
        let floor = min(tip, ancestor) - Self.walkDepth
        let reachable = ancestors(of: tip, downTo: floor).subtracting(ancestors(of: ancestor, downTo: floor))
        return Array(reachable.sorted(by: >).prefix(limit))
    }

    /// The commit and every commit reachable from it down to index `floor`.
    private func ancestors(of commit: Int, downTo floor: Int) -> Set<Int> {
        var seen: Set<Int> = [commit]
        var stack = [commit]
        while let index = stack.popLast() {
            for parent in commits[index].parents where parent >= floor && seen.insert(parent).inserted { stack.append(parent) }
        }
        return seen
    }
}

extension QueriesHistory {
    /// The comparison `leakhistory check --base main` asks the server for at a build
    /// (`DiffFlow.compare`); nil commits are left out of the request.
    struct CheckDiff {
        var base: Int?
        var head: Int
        var mergeBase: Int?
        var after: Int?

        func query(environment: String, sha: (Int) -> String) -> String {
            var query = "head=\(sha(head))&environment=\(environment)"
            if let base { query += "&base=\(sha(base))" }
            if let mergeBase { query += "&mergeBase=\(sha(mergeBase))" }
            if let after { query += "&after=\(sha(after))" }
            return query
        }
    }

    /// What `leakhistory check` compares at the build, as `DiffFlow.compare` does with git and the
    /// server's resolve (`resolve`: the first of the candidates with a usable upload in the
    /// environment): a push or merge on main against its first parent's nearest upload, a pull
    /// request against its merge-base's, with main's nearest upload after the merge-base (or,
    /// when there is none and the base fell back, the newest upload the fallen-back commits merged).
    /// `depth` is the CLI's `--depth` default.
    func checkDiff(_ build: Build, depth: Int = 100, resolve: ([Int]) throws -> Int?) rethrows -> CheckDiff {
        let head = build.commit
        let onBaseBranch = build.mergeBase == nil
        var mergeBase = build.mergeBase ?? head
        let noBase = CheckDiff(base: nil, head: head, mergeBase: nil, after: nil)
        if onBaseBranch {
            guard let parent = commits[head].parents.first else { return noBase }
            mergeBase = parent
        }
        guard let base = try resolve(firstParentLine(from: mergeBase, limit: depth)) else { return noBase }
        var after: Int?
        if !onBaseBranch, build.mainTip != mergeBase {
            let later = firstParentCommits(of: build.mainTip, after: mergeBase, limit: depth)
            if !later.isEmpty { after = try resolve(later) }
        }
        if !onBaseBranch, after == nil, base != mergeBase {
            let merged = commits(of: mergeBase, notIn: base, limit: depth)
            if !merged.isEmpty { after = try resolve(merged) }
        }
        return CheckDiff(base: base, head: head, mergeBase: onBaseBranch ? nil : mergeBase, after: after)
    }
}

/// What `QueriesHistory` reads of a generator's commit.
protocol GeneratedCommit {
    var parents: [Int] { get }
    var branch: String { get }
}

/// What `QueriesHistory` reads of a generator's build.
protocol GeneratedBuild {
    var commit: Int { get }
    var isPullRequest: Bool { get }
    var mainTip: Int { get }
    var mergeBase: Int? { get }
}

extension SyntheticHistory.Commit: GeneratedCommit {}
extension SyntheticHistory.Build: GeneratedBuild {}
extension GateHistory.Commit: GeneratedCommit {}
extension GateHistory.Build: GeneratedBuild {}
