import Foundation
import LeakReport
@testable import LeakStore
import Testing

/// Key states of recent commits (migration 14, `StateTables`): a new commit's states go to
/// `leak_states_recent` and settle into the key-ordered `leak_states` in batches. Wherever the
/// states of each commit are when a query runs, every answer is the one recorded for the same
/// uploads (`Golden/answers-before-compact.txt`), and each commit's states are in one table.
@Suite("Recent key states")
struct RecentStatesTests {
    /// `recentCommits` 1 settles every commit but the newest as soon as the next one comes (a
    /// commit's re-runs then go to `leak_states`); 4 settles three at a time, keeping one recent;
    /// 1,000 never settles during the uploads, and then once everything, or nothing.
    @Test(arguments: [(1, false), (4, false), (1_000, false), (1_000, true)])
    func everyAnswerIsTheRecordedOneWhereverTheStatesAre(recentCommits: Int, settleAllAfterwards: Bool) throws {
        let database = try TestDatabase(.sqlite)
        let store = try database.open(StoreOptions(recentCommits: recentCommits))
        let history = AnswerHistory()
        try history.upload(into: store)
        if settleAllAfterwards {
            #expect(try store.settleRecentStates(keepingNewest: 0) > 0)
            #expect(try store.settleRecentStates(keepingNewest: 0) == 0)
        }
        let placement = try Self.placement(store)
        #expect(placement.inBoth == 0, "a commit's states must be in one table")
        #expect(placement.unlistedRecent == 0, "recent states of a commit not listed as recent")
        #expect(placement.listedSettled == 0, "settled states of a commit listed as recent")
        switch (recentCommits, settleAllAfterwards) {
        case (_, true): #expect(placement.recentCommits == 0)
        case (1_000, false): #expect(placement.settledCommits == 0)
        default:
            #expect((1...recentCommits).contains(placement.recentCommits))
            #expect(placement.settledCommits > 0)
        }
        let difference = try CompactStorageTests.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")
    }

    /// Runs of up to 25 checks (the partial ones) stored at once, bigger ones in slices: a big
    /// run onto a recent commit rebuilds it under the next id, settled, and what it leaves is
    /// removed from both tables; a small re-run of a commit a big run made adds to its settled states.
    @Test(arguments: [4, 1_000])
    func bigRunsAndReRunsOntoRecentAndSettledCommitsAnswerAsRecorded(recentCommits: Int) throws {
        let database = try TestDatabase(.sqlite)
        let store = try database.open(StoreOptions(ingestSliceChecks: 25, recentCommits: recentCommits))
        let history = AnswerHistory()
        try history.upload(into: store)
        let placement = try Self.placement(store)
        #expect(placement.inBoth == 0 && placement.unlistedRecent == 0 && placement.listedSettled == 0)
        #expect(placement.settledCommits > 0)
        if recentCommits == 1_000 { #expect(placement.recentCommits > 0) }
        let difference = try CompactStorageTests.firstDifference(try history.answers(store))
        #expect(difference == nil, "\(difference ?? "")")
        #expect(try store.removeAbandonedUploads(receivedBefore: Date().addingTimeInterval(3_600)) == 0)
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM commits WHERE sha LIKE 'pending:%'") } == 0)
    }

    /// PostgreSQL keeps every state in `leak_states` (`SQLConnection.keepsRecentStates`).
    @Test(arguments: TestEngine.postgresOnly)
    func postgresKeepsNoRecentStates(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open(StoreOptions(recentCommits: 4))
        try AnswerHistory().upload(into: store)
        let placement = try Self.placement(store)
        #expect(placement.recentCommits == 0 && placement.settledCommits > 0)
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM leak_states_recent") } == 0)
        #expect(try store.settleRecentStates(keepingNewest: 0) == 0)
    }

    struct Placement {
        var recentCommits = 0, settledCommits = 0, inBoth = 0, unlistedRecent = 0, listedSettled = 0
    }

    /// Where each commit's states are.
    static func placement(_ store: LeakStore) throws -> Placement {
        try store.read { db in
            var placement = Placement()
            try db.query("""
                SELECT EXISTS (SELECT 1 FROM recent_state_commits r WHERE r.commit_id = c.id),
                       EXISTS (SELECT 1 FROM leak_states_recent s WHERE s.commit_id = c.id),
                       EXISTS (SELECT 1 FROM leak_states s WHERE s.commit_id = c.id)
                FROM commits c
                """) { row in
                let (listed, recent, settled) = (row.int(at: 0) != 0, row.int(at: 1) != 0, row.int(at: 2) != 0)
                if recent { placement.recentCommits += 1 }
                if settled { placement.settledCommits += 1 }
                if recent && settled { placement.inBoth += 1 }
                if recent && !listed { placement.unlistedRecent += 1 }
                if settled && listed { placement.listedSettled += 1 }
            }
            return placement
        }
    }
}
