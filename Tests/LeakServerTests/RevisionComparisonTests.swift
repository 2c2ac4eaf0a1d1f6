import Foundation
import Testing
import LeakStore

/// `LeakStore.compare`: revisions resolved from the uploaded commits as the CLI resolves them
/// with git — the merge-base along the uploaded parents, its nearest ancestor with an upload,
/// and the base branch's uploads after the merge-base.
@Suite struct RevisionComparisonTests {
    let sha = HistoryFixture.sha

    /// main: 1 - 2 - 3 - 4 (2 has no upload in linux, 3 and 4 have);  feature from 2: 10 - 11.
    func seeded() throws -> TestServer {
        let server = try TestServer()
        let clean = [HistoryFixture.Check.clean("A/a()", "App.A")]
        try server.uploadRun(commit: sha(1), checks: clean)
        try server.uploadRun(commit: sha(2), environment: "other", checks: clean)
        try server.uploadRun(commit: sha(3), parents: [sha(2)], checks: clean)
        try server.uploadRun(commit: sha(4), parents: [sha(3)], checks: clean)
        // Commit 2's upload in another environment recorded its parent for the graph.
        try server.uploadRun(commit: sha(2), parents: [sha(1)], environment: "other", checks: clean)
        try server.uploadRun(commit: sha(10), branch: "feature", parents: [sha(2)], checks: clean)
        try server.uploadRun(commit: sha(11), branch: "feature", parents: [sha(10)], checks: clean)
        return server
    }

    @Test func aBranchAgainstMainFallsBackPastTheMergeBaseAndNamesTheUploadsAfterIt() throws {
        let server = try seeded()
        let comparison = try server.store.compare(project: "app", base: "main", head: "feature", environment: "linux")
        #expect(comparison.base == .found(commit: sha(4), match: .branch("main")))
        #expect(comparison.head == .found(commit: sha(11), match: .branch("feature")))
        #expect(comparison.mergeBase == sha(2))
        // Commit 2 has no upload in linux: its first parent stands in.
        #expect(comparison.compared == sha(1))
        #expect(comparison.distance == 1)
        #expect(comparison.after == sha(3))
        #expect(!comparison.onBaseBranch)
    }

    @Test func aPushToMainIsComparedWithItsFirstParent() throws {
        let server = try seeded()
        let comparison = try server.store.compare(project: "app", base: "main", head: sha(4), environment: "linux")
        #expect(comparison.onBaseBranch)
        #expect(comparison.compared == sha(3))
        #expect(comparison.distance == 0)
        #expect(comparison.after == nil)
    }

    @Test func fullIdsStandAndAmbiguousPrefixesAndUnknownNamesSaySo() throws {
        let server = try seeded()
        let tag = try server.store.compare(project: "app", base: "v1.2.0", head: "feature", environment: "linux")
        #expect(tag.base == .unknown)
        #expect(tag.compared == nil)
        let ambiguous = try server.store.compare(project: "app", base: "00000000", head: "main", environment: "linux")
        guard case let .ambiguous(matches) = ambiguous.base else { Issue.record("expected ambiguous, got \(ambiguous.base)"); return }
        #expect(matches.count > 1)
        let full = try server.store.compare(project: "app", base: sha(1), head: sha(11), environment: "linux")
        #expect(full.base == .found(commit: sha(1), match: .commit))
        #expect(full.mergeBase == sha(1))
        #expect(full.compared == sha(1))
    }
}
