import Foundation
import LeakReport
import LeakStore
import Testing

@Suite("Trends, types, commits and scenario history")
struct TrendTests {
    typealias Check = HistoryFixture.Check
    let sha = HistoryFixture.sha

    /// Every commit labelled `main` (as a merge queue would), uploaded out of topological
    /// order: Z and A have no parents, F is a side-branch commit merged by M.
    ///
    ///     Z   A ── B ── M ── C
    ///          \       /
    ///           F ────
    @Test func theTrendFollowsFirstParentsThenUploadOrder() throws {
        let server = try TestServer()
        let (z, a, f, b, m, c) = (sha(0xa0), sha(0xa1), sha(0xf1), sha(0xb1), sha(0xe1), sha(0xc1))
        let leak = [Check.leaked("T/t()", "App.Cache", fingerprint: "fp-cache")]
        try server.uploadRun(commit: z, checks: leak)
        try server.uploadRun(commit: a, checks: leak)
        try server.uploadRun(commit: f, parents: [a], checks: leak + [.leaked("T/side()", "App.Cache")])
        try server.uploadRun(commit: b, parents: [a], checks: [.clean("T/t()", "App.Cache")])
        try server.uploadRun(commit: m, parents: [b, f], checks: leak)
        try server.uploadRun(commit: c, parents: [m], checks: leak)

        let trend = try server.get("/v1/projects/app/types/App.Cache/trend?branch=main&environment=linux", as: TrendResponse.self)
        #expect(trend.points.map(\.commit) == [z, a, b, m, c])
        #expect(trend.points.map(\.leakedKeys) == [1, 1, 0, 1, 1])
        #expect(trend.points.map(\.checkedKeys) == [1, 1, 1, 1, 1])
        #expect(trend.points.last?.scenarios == ["T/t()"])
        #expect(trend.points.last?.fingerprints == ["fp-cache"])
        #expect(trend.points.first?.at == "2026-11-30T02:10:00.000Z")

        let limited = try server.get("/v1/projects/app/types/App.Cache/trend?branch=main&limit=2&environment=linux", as: TrendResponse.self)
        #expect(limited.points.map(\.commit) == [m, c])
        let elsewhere = try server.get("/v1/projects/app/types/App.Cache/trend?branch=main&environment=macos", as: TrendResponse.self)
        #expect(elsewhere.points.isEmpty)
    }

    /// A trend's fingerprints are each leaking commit's own, distinct and in byte order, read
    /// for the commits of a long trend in batches (`StoreTuning.commitIDsPerStatement`): another type's,
    /// another environment's and a suspect run's are not among them.
    @Test(arguments: TestEngine.all)
    func eachLeakingCommitOfALongTrendHasItsOwnFingerprints(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        let commits = 70
        for number in 1...commits {
            var checks = [Check.leaked("T/a()", "App.Cache", fingerprint: "fp-\(number)-b"),
                          .leaked("T/b()", "App.Cache", fingerprint: number % 2 == 0 ? "fp-\(number)-B" : "fp-\(number)-b"),
                          .leaked("T/c()", "App.Other", fingerprint: "other-\(number)")]
            if number % 10 == 0 { checks = [.clean("T/a()", "App.Cache")] }
            try server.uploadRun(commit: sha(number), parents: number == 1 ? [] : [sha(number - 1)], checks: checks)
            try server.uploadRun(commit: sha(number), parents: number == 1 ? [] : [sha(number - 1)], environment: "macos",
                                 checks: [.leaked("T/a()", "App.Cache", fingerprint: "mac-\(number)")])
        }
        // A suspect run (every one of 20 checks leaked) at the newest commit: not a usable run.
        try server.uploadRun(commit: sha(commits), parents: [sha(commits - 1)],
                             checks: (0..<20).map { .leaked("S/s\($0)()", "App.Cache", fingerprint: "suspect") }, pad: false)

        let trend = try server.get("/v1/projects/app/types/App.Cache/trend?branch=main&limit=1000&environment=linux",
                                   as: TrendResponse.self)
        #expect(trend.points.count == commits)
        for (index, point) in trend.points.enumerated() {
            let number = index + 1
            let expected = number % 10 == 0 ? [] : number % 2 == 0 ? ["fp-\(number)-B", "fp-\(number)-b"] : ["fp-\(number)-b"]
            #expect(point.fingerprints == expected, "commit \(number)")
        }
        // The newest commit counts its usable run alone: one key, clean.
        #expect(trend.points.last.map { [$0.checkedKeys, $0.leakedKeys] } == [1, 0])
    }

    /// The dashboard's sparklines read several trends along one walk of the branch: each the same
    /// as the type's own trend, fingerprints left out when not asked for.
    @Test func severalTrendsAlongOneWalkAreEachTypesTrend() throws {
        let server = try TestServer()
        for index in 1...6 {
            let checks: [Check] = [index % 2 == 0 ? .leaked("A/a()", "App.A", fingerprint: "fp-a") : .clean("A/a()", "App.A"),
                                   index > 3 ? .leaked("B/b()", "App.B", fingerprint: "fp-b") : .clean("B/b()", "App.B")]
            try server.uploadRun(commit: sha(index), parents: index == 1 ? [] : [sha(index - 1)], checks: checks + HistoryFixture.padding)
        }
        let store = server.store
        let both = try store.trends(project: "app", types: ["App.A", "App.B", "App.Never"], branch: "main", environment: "linux",
                                    limit: 4, fingerprints: true)
        for type in ["App.A", "App.B", "App.Never"] {
            #expect(both[type] == (try store.trend(project: "app", type: type, branch: "main", environment: "linux", limit: 4)), "\(type)")
        }
        #expect(both["App.B"]?.map(\.leakedKeys) == [0, 1, 1, 1])
        #expect(both["App.B"]?.last?.fingerprints == ["fp-b"])
        let charts = try store.trends(project: "app", types: ["App.A"], branch: "main", environment: "linux", limit: 4,
                                      fingerprints: false)
        #expect(charts["App.A"]?.map(\.leakedKeys) == both["App.A"]?.map(\.leakedKeys))
        #expect(charts["App.A"]?.allSatisfy(\.fingerprints.isEmpty) == true)
    }

    /// Leaking scenarios per commit, oldest first, for three types.
    @Test func typesAtTheHeadWithTheirDirection() throws {
        let server = try TestServer()
        let history: [[String: Int]] = [
            ["App.Rising": 1, "App.Falling": 3, "App.Flat": 2, "App.Gone": 1],
            ["App.Rising": 1, "App.Falling": 2, "App.Flat": 2],
            ["App.Rising": 3, "App.Falling": 1, "App.Flat": 2],
        ]
        for (index, leaking) in history.enumerated() {
            let checks = leaking.flatMap { type, count in (0..<count).map { Check.leaked("S/s\($0)()", type) } }
            try server.uploadRun(commit: sha(index + 1), parents: index == 0 ? [] : [sha(index)], checks: checks + HistoryFixture.padding)
        }
        let types = try server.get("/v1/projects/app/types?branch=main&environment=linux", as: TypesResponse.self)
        #expect(types.head == sha(3))
        #expect(types.types.map(\.type) == ["App.Falling", "App.Flat", "App.Rising"])
        #expect(types.types.map(\.direction) == [.falling, .flat, .rising])
        let rising = try #require(types.types.last)
        #expect(rising.leakingScenarios == ["S/s0()", "S/s1()", "S/s2()"])
        #expect(rising.firstSeen == sha(1))
        #expect(rising.lastSeen == sha(3))

        let none = try server.get("/v1/projects/app/types?branch=nowhere", as: TypesResponse.self)
        #expect(none.head == nil && none.types.isEmpty)
    }

    /// A type's first seen and each key's "introduced by" follow the head's first parents, as
    /// the diff's `firstSeen` does: a commit uploaded without a branch name still counts, and a
    /// leak that was fixed and came back was introduced where it came back.
    @Test func firstSeenAndIntroducedByAreWhereTheCurrentLeakingStretchBegan() throws {
        let server = try TestServer()
        let line: [(branch: String?, back: Bool)] = [(nil, false), ("main", true), ("main", false), ("main", true), ("main", true)]
        for (index, commit) in line.enumerated() {
            try server.uploadRun(commit: sha(index + 1), branch: commit.branch, parents: index == 0 ? [] : [sha(index)],
                                 checks: [.leaked("A/a()", "App.Always"), commit.back ? .leaked("B/b()", "App.Back") : .clean("B/b()", "App.Back")])
        }
        let types = try server.get("/v1/projects/app/types?branch=main&environment=linux", as: TypesResponse.self)
        #expect(types.types.map(\.type) == ["App.Always", "App.Back"])
        #expect(types.types.map(\.firstSeen) == [sha(1), sha(4)])
        for (type, introduced) in [("App.Always", sha(1)), ("App.Back", sha(4))] {
            let leaks = try server.store.typeLeaks(project: "app", type: type, branch: "main", environment: "linux", limit: 10)
            #expect(leaks.map(\.introducedBy) == [introduced], "\(type)")
        }
        let diff = try server.diff(base: nil, head: 5)
        #expect(diff.entry("A/a()", "App.Always")?.firstSeen == sha(1))
        #expect(diff.entry("B/b()", "App.Back")?.firstSeen == sha(4))
    }

    @Test func aCommitListsItsRunsAndTheirLeaks() throws {
        let server = try TestServer()
        try server.uploadRun(commit: sha(1), checks: [.leaked("A/a()", "App.A", fingerprint: "fp-a"), .clean("B/b()", "App.B")])
        let reply = try server.client.get("/v1/projects/app/commits/\(sha(1))")
        #expect(reply.status == 200)
        let runs = try #require(reply.json["runs"] as? [[String: Any]])
        let leaks = try #require(runs.first?["leaks"] as? [[String: Any]])
        #expect(leaks.count == 1)
        #expect(leaks.first?["type"] as? String == "App.A")
        #expect(leaks.first?["fingerprint"] as? String == "fp-a")
    }

    @Test func aCommitsLeaksComePageByPageWithAnOpaqueCursor() throws {
        let server = try TestServer()
        try server.uploadRun(commit: sha(1), checks: (0..<5).map { .leaked("A/a\($0)()", "App.A") } + [.clean("B/b()", "App.B")])
        try server.uploadRun(commit: sha(1), checks: (0..<3).map { .leaked("C/c\($0)()", "App.C") })
        var seen: [String] = []
        var path = "/v1/projects/app/commits/\(sha(1))?limit=3"
        var pages = 0
        while true {
            let reply = try server.client.get(path)
            #expect(reply.status == 200, "\(reply.text)")
            let runs = try #require(reply.json["runs"] as? [[String: Any]])
            #expect(runs.count == 2, "every run on every page")
            let leaks = runs.flatMap { ($0["leaks"] as? [[String: Any]]) ?? [] }
            #expect(leaks.count <= 3)
            seen += leaks.compactMap { $0["scenario"] as? String }
            pages += 1
            guard let next = reply.json["next"] as? String else { break }
            path = "/v1/projects/app/commits/\(sha(1))?limit=3&cursor=\(next)"
        }
        #expect(pages == 3)
        #expect(seen == (0..<5).map { "A/a\($0)()" } + (0..<3).map { "C/c\($0)()" })
        #expect(try server.client.get("/v1/projects/app/commits/\(sha(1))?cursor=nonsense").status == 400)
        #expect(try server.client.get("/v1/projects/app/commits/\(sha(1))?limit=1001").status == 400)
        // The dashboard's commit page shows the first page and links the next.
        let page = try server.client.get("/p/app/commits/\(sha(1))?limit=2")
        #expect(page.status == 200)
        #expect(page.text.contains("id=\"next-page\""))
    }

    @Test func aScenarioHistoryListsItsKeysPerCommit() throws {
        let server = try TestServer()
        try server.uploadRun(commit: sha(1), checks: [.clean("A/a()", "App.A"), .clean("A/a()", "App.B")])
        try server.uploadRun(commit: sha(2), checks: [.leaked("A/a()", "App.A"), .clean("A/a()", "App.B")])
        try server.uploadRun(commit: sha(3), checks: [.clean("Other/o()", "App.A")])
        let path = "/v1/projects/app/scenarios/history?scenario=\("A/a()".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&environment=linux"
        let reply = try server.client.get(path)
        #expect(reply.status == 200, "\(reply.text)")
        let commits = try #require(reply.json["commits"] as? [[String: Any]])
        #expect(commits.map { $0["commit"] as? String } == [sha(1), sha(2)])
        let last = try #require(commits.last?["keys"] as? [[String: Any]])
        #expect(last.map { $0["type"] as? String } == ["App.A", "App.B"])
        #expect(last.map { $0["state"] as? String } == ["leaked", "clean"])
    }
    /// With `branch`, the history follows the branch's first parents: a feature branch's commits
    /// uploaded in between are not main's history.
    @Test func aScenarioHistoryOfABranchFollowsItsFirstParents() throws {
        let server = try TestServer()
        try server.uploadRun(commit: sha(1), checks: [.clean("A/a()", "App.A")])
        try server.uploadRun(commit: sha(2), branch: "feature", parents: [sha(1)], checks: [.leaked("A/a()", "App.A")])
        try server.uploadRun(commit: sha(3), parents: [sha(1)], checks: [.clean("A/a()", "App.A")])
        let scenario = "A/a()".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let commits = { (query: String) throws -> [String?] in
            let reply = try server.client.get("/v1/projects/app/scenarios/history?scenario=\(scenario)&environment=linux\(query)")
            #expect(reply.status == 200, "\(reply.text)")
            return try #require(reply.json["commits"] as? [[String: Any]]).map { $0["commit"] as? String }
        }
        #expect(try commits("&branch=main") == [sha(1), sha(3)])
        #expect(try commits("&branch=feature") == [sha(1), sha(2)])
        #expect(try commits("") == [sha(1), sha(2), sha(3)], "without a branch: every commit of the project")
    }
}
