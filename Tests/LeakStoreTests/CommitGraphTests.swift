import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// The commit graph a PostgreSQL connection keeps between reads (`CommitGraph`): a walk read
/// after an upload changed the graph answers as a server that never walked it before. On SQLite
/// nothing is kept; the same answers are asked of it.
@Suite("Commit graph kept between reads")
struct CommitGraphTests {
    private static func sha(_ number: Int) -> String { String(repeating: "\(number)", count: 40) }

    /// A run at commit `number`: its first check leaks from commit 3 on.
    private static func run(_ number: Int, parents: [Int], branch: String = "main") -> RunRecord {
        var run = LeakStoreTests.run(key: "r\(number)", outcomes: [number >= 3 ? .leaked : .deallocated]
            + Array(repeating: .deallocated, count: 9))
        run.commit = sha(number)
        run.parents = parents.map(sha)
        run.branch = branch
        return run
    }

    /// Where the head's leak began along its first parents (a walk that ends where a parent is unknown).
    private static func firstSeen(_ store: LeakStore) throws -> String? {
        let diff = try store.diff(project: "app", base: sha(4), head: sha(5), environment: "linux")
        return diff.leaks.entries.first { $0.category == .persisting }?.firstSeen.map { String($0.prefix(1)) }
    }

    /// The commits of `main`'s first-parent line, newest first, as a trend walks them.
    private static func line(_ store: LeakStore) throws -> [String] {
        try store.trend(project: "app", type: "App.Model", branch: "main", environment: "linux", limit: 50)
            .reversed().map { String($0.commit.prefix(1)) }
    }

    /// Whether the connection the store's reads use has learned any of the graph (PostgreSQL).
    private static func graphIsKept(_ store: LeakStore) throws -> Bool {
        try store.read { $0.memory.map { !$0.commitGraph.isEmpty } ?? false }
    }

    /// `main`'s commits 1, 2, 4 and 5, 4's parent 3 not uploaded: the walk goes on from 4 to main's
    /// previous upload, 2 — read once, so that a PostgreSQL connection has learned the way.
    private static func mainWithoutThree(_ engine: TestEngine) throws -> (TestDatabase, LeakStore) {
        let database = try TestDatabase(engine)
        let store = try database.open()
        _ = try store.createProject("app")
        for (number, parents) in [(1, []), (2, [1]), (4, [3]), (5, [4])] { _ = try store.ingest(run(number, parents: parents)) }
        #expect(try line(store) == ["5", "4", "2", "1"])
        return (database, store)
    }

    @Test(arguments: TestEngine.all)
    func aParentUploadedAfterTheWalkIsWalkedThroughNextTime(_ engine: TestEngine) throws {
        let (database, store) = try Self.mainWithoutThree(engine)
        #expect(try Self.firstSeen(store) == "4", "the head's line ends at 4")
        #expect(try Self.graphIsKept(store) == (engine == .postgres))

        // On a branch of its own, so that `main`'s trend still starts at 5.
        _ = try store.ingest(Self.run(3, parents: [2], branch: "topic"))
        for answering in [store, try database.open()] {
            #expect(try Self.line(answering) == ["5", "4", "3", "2", "1"])
            #expect(try Self.firstSeen(answering) == "3")
        }
    }

    /// Where a walk went on from a commit without a known parent — the branch's previous upload by
    /// id — another commit can come to stand: a pending upload takes its id when it begins and
    /// joins the branch when it is published, after commits uploaded meanwhile.
    @Test(arguments: TestEngine.all)
    func aCommitPublishedLateOntoTheBranchIsWhereTheWalkGoesOnNextTime(_ engine: TestEngine) throws {
        let (database, store) = try Self.mainWithoutThree(engine)

        // Commit 6 on main with an id between 2's and 4's, as a late publish leaves it, and a run there.
        try store.write { writer in
            let db = writer.connection
            try db.run("""
                INSERT INTO commits (id, project_id, sha, branch, first_seen)
                SELECT c.id + 1, c.project_id, ?1, 'main', c.first_seen FROM commits c WHERE c.sha = ?2
                """, [.text(Self.sha(6)), .text(Self.sha(2))])
            try db.run("UPDATE runs SET commit_id = (SELECT id FROM commits WHERE sha = ?1) WHERE run_key = 'r1'", [.text(Self.sha(6))])
        }
        // 1's run now stands at 6: the line goes 4 → 6 (the branch's previous commit) → 2.
        #expect(try Self.line(store) == ["5", "4", "6", "2"])
        #expect(try Self.line(try database.open()) == ["5", "4", "6", "2"], "a server that never walked it")
    }

    /// That a commit has a usable run is kept; that it has none is not: a commit walked through
    /// with only a suspect run is listed once a usable run reaches it.
    @Test(arguments: TestEngine.all)
    func aCommitWalkedThroughWithoutAUsableRunIsListedOnceItHasOne(_ engine: TestEngine) throws {
        let (database, store) = try Self.mainWithoutThree(engine)
        var broken = LeakStoreTests.run(key: "r6", outcomes: Array(repeating: .leaked, count: RunTally.suspectMinimumChecks))
        (broken.commit, broken.parents, broken.branch) = (Self.sha(6), [Self.sha(5)], "main")
        #expect(try store.ingest(broken).suspect)
        _ = try store.ingest(Self.run(7, parents: [6]))
        #expect(try Self.line(store) == ["7", "5", "4", "2", "1"], "6 has only a suspect run")

        var rerun = Self.run(6, parents: [5])
        rerun.runKey = "r6-again"
        _ = try store.ingest(rerun)
        for answering in [store, try database.open()] {
            #expect(try Self.line(answering) == ["7", "6", "5", "4", "2", "1"])
        }
    }

    /// When a commit's first usable run started is read in each snapshot, not kept with the
    /// commit's usable run: a run published later that started earlier moves the trend's time.
    @Test(arguments: TestEngine.all)
    func aTrendTellsWhenTheFirstRunStartedAfterAnEarlierRunArrives(_ engine: TestEngine) throws {
        let (database, store) = try Self.mainWithoutThree(engine)
        let at = { (store: LeakStore) in
            try store.trend(project: "app", type: "App.Model", branch: "main", environment: "linux", limit: 50,
                            fingerprints: false).first { $0.commit == Self.sha(4) }?.at
        }
        let before = try at(store)
        #expect(before != nil && before != "")

        var earlier = Self.run(4, parents: [3])
        earlier.runKey = "r4-earlier"
        earlier.startedAt = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try store.ingest(earlier)
        for answering in [store, try database.open()] {
            #expect(try at(answering)?.hasPrefix("2023-11-14T22:13:20") == true)
        }
    }

    /// The memory forgets at one point, the start of a read (`ConnectionMemory.beginRead`):
    /// inside a read it only grows; past its capacity, or on a reset connection, it starts over.
    @Test func aMemoryPastItsCapacityStartsOverAtTheNextRead() {
        let memory = ConnectionMemory()
        memory.beginRead(session: 0)
        memory.learn((0..<Int64(StoreTuning.commitGraphFacts)).map { .firstParent($0 + 1, of: $0) })
        memory.learn([.sha(Self.sha(1), of: 7)])
        #expect(memory.commitGraph.factCount == StoreTuning.commitGraphFacts + 1, "a read only adds")
        memory.beginRead(session: 0)
        #expect(memory.commitGraph.isEmpty && memory.commitGraph.firstParents.isEmpty)
        memory.learn([.sha(PendingUpload.placeholderPrefix + "0123", of: 8), .sha("", of: 9), .sha(Self.sha(2), of: 10)])
        #expect(memory.commitGraph.shas == [10: Self.sha(2)], "placeholders and commits a snapshot did not hold are not kept")

        // Usable runs count as facts too, each once.
        memory.learn((0..<Int64(StoreTuning.commitGraphFacts - 2)).map { .usableRun(at: $0, environment: "linux") }
                     + [.usableRun(at: 0, environment: "linux")])
        memory.beginRead(session: 0)
        #expect(memory.commitGraph.usable["linux"]?.count == StoreTuning.commitGraphFacts - 2 && memory.commitGraph.shas.count == 1)
        memory.learn([.sha(Self.sha(3), of: 11)])
        memory.beginRead(session: 0)
        #expect(memory.commitGraph.isEmpty)

        // A reset connection (another session) starts over, whatever it holds.
        memory.learn([.sha(Self.sha(4), of: 12)])
        memory.beginRead(session: 1)
        #expect(memory.commitGraph.isEmpty)
    }

    /// Key names read through the memory: what it keeps is handed over, only the others loaded.
    @Test func keyNamesAreLoadedOnceAndKept() {
        let memory = ConnectionMemory()
        let named = KeyCounts(scenarioID: 1, typeID: 2, scenario: "S.test()", type: "App.Model")
        var asked: [[Int64]] = []
        let first = memory.keyNames(of: [6, 5]) { ids in
            asked.append(ids)
            return [5: named]
        }
        let second = memory.keyNames(of: [5, 6]) { ids in
            asked.append(ids)
            return [:]
        }
        #expect(asked == [[5, 6], [6]] && first[5]?.ids == named.ids && second[5]?.ids == named.ids && second[6] == nil)
        memory.beginRead(session: 1)
        _ = memory.keyNames(of: [5]) { ids in
            asked.append(ids)
            return [:]
        }
        #expect(asked.last == [5])
    }
}
