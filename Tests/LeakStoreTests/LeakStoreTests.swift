import Foundation
import LeakReport
@testable import LeakStore
import Testing

@Suite("LeakStore")
struct LeakStoreTests {
    static let commit = String(repeating: "ab", count: 20)

    static func run(key: String = "k1", outcomes: [CheckOutcome] = [.leaked, .deallocated]) -> RunRecord {
        RunRecord(project: "app", commit: commit, branch: "main", parents: [], environment: "linux", runKey: key,
                  startedAt: Date(timeIntervalSince1970: 1_800_000_000), checks: outcomes.enumerated().map { index, outcome in
                      CheckRecord(scenario: "S/\(index)()", file: "S.swift", line: index, type: "App.Model",
                                  outcome: outcome, waitedMs: 1, timeoutMs: 100,
                                  timestamp: Date(timeIntervalSince1970: 1_800_000_000))
                  })
    }

    @Test func theDatabaseIsInWALWithForeignKeysOn() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path, options: StoreOptions(synchronous: .full))
        let settings = try store.write { writer in
            [try writer.connection.scalarText("PRAGMA journal_mode"),
             try writer.connection.scalarInt("PRAGMA foreign_keys").map(String.init),
             try writer.connection.scalarInt("PRAGMA synchronous").map(String.init)]
        }
        #expect(settings == ["wal", "1", "2"])
    }

    @Test func ingestIsIdempotentPerRunKeyAndRefusesAChangedRun() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        _ = try store.createProject("app")
        let first = try store.ingest(Self.run())
        #expect(first.created && first.checkCount == 2 && first.leakedCount == 1 && !first.suspect)
        let again = try store.ingest(Self.run())
        #expect(!again.created && again.runID == first.runID)
        #expect(throws: LeakStoreError.runKeyConflict(project: "app", runKey: "k1", existingRunID: first.runID)) {
            try store.ingest(Self.run(outcomes: [.leaked, .leaked]))
        }
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM checks") } == 2)
    }

    @Test func aFailedIngestLeavesNoTraceAndLaterIngestsStillWork() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        #expect(throws: LeakStoreError.projectNotFound("app")) { try store.ingest(Self.run()) }
        _ = try store.createProject("app")
        // A refused run in between must not disturb the next one.
        _ = try store.ingest(Self.run(key: "a"))
        _ = try? store.ingest(Self.run(key: "a", outcomes: [.error]))
        let receipt = try store.ingest(Self.run(key: "b", outcomes: Array(repeating: .leaked, count: 20)))
        #expect(receipt.suspect)
        let counts = try store.read { db in
            [try db.scalarInt("SELECT count(*) FROM runs"), try db.scalarInt("SELECT count(*) FROM scenarios"),
             try db.scalarInt("SELECT count(*) FROM checks WHERE scenario_id NOT IN (SELECT id FROM scenarios)")]
        }
        #expect(counts == [2, 20, 0])
    }

    @Test func tokensAreStoredHashedVerifiedAndRevoked() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        let issued = try store.createProject("app")
        #expect(issued.secret.hasPrefix("lh_\(issued.id)_") && issued.secret.count == "lh_\(issued.id)_".count + 64)
        #expect(try store.verifyToken(issued.secret) == .valid(id: issued.id, project: "app", scope: .write))
        let stored = try store.read { try $0.scalarText("SELECT secret_hash FROM tokens WHERE id = ?", [.integer(issued.id)]) }
        #expect(stored?.count == 64 && stored?.contains(issued.secret) == false)

        var tampered = issued.secret
        tampered.removeLast()
        tampered += issued.secret.hasSuffix("0") ? "1" : "0"
        #expect(try store.verifyToken(tampered) == .unknown)

        let read = try store.createToken(project: "app", scope: .read)
        try store.revokeToken(id: issued.id)
        #expect(try store.verifyToken(issued.secret) == .revoked(id: issued.id))
        #expect(try store.verifyToken(read.secret) == .valid(id: read.id, project: "app", scope: .read))
        let listed = try store.tokens(project: "app")
        #expect(listed.map(\.id) == [issued.id, read.id])
        #expect(listed.map { $0.revokedAt != nil } == [true, false])
        #expect(throws: LeakStoreError.tokenNotFound(999)) { try store.revokeToken(id: 999) }
        #expect(throws: LeakStoreError.projectExists("app")) { try store.createProject("app") }
    }

    @Test func aFailingStatementNamesTheCodeTheMessageAndTheSQL() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        let error = #expect(throws: SQLiteError.self) {
            try store.write { try $0.connection.run("INSERT INTO projects (name, created_at) VALUES (NULL, ?)", [.text("x")]) }
        }
        #expect(error?.code == 1299) // SQLITE_CONSTRAINT_NOTNULL
        #expect(error?.message.contains("NOT NULL constraint failed: projects.name") == true)
        #expect(error?.sql == "INSERT INTO projects (name, created_at) VALUES (NULL, ?)")
    }

    /// A read is one snapshot: what an upload commits halfway through it is not seen by its
    /// later statements, and is seen by the next read.
    @Test func aReadSeesOneSnapshotWhileUploadsCommit() throws {
        let database = try TemporaryDatabase()
        let store = try LeakStore(path: database.path)
        _ = try store.createProject("app")
        _ = try store.ingest(Self.run(key: "a"))
        let (before, during) = try store.read { db in
            let before = try db.scalarInt("SELECT count(*) FROM runs")
            _ = try store.ingest(Self.run(key: "b"))
            return (before, try db.scalarInt("SELECT count(*) FROM checks") ?? -1)
        }
        #expect(before == 1)
        #expect(during == 2, "the second run's checks were committed after the read began")
        #expect(try store.read { try $0.scalarInt("SELECT count(*) FROM checks") } == 4)
    }
}
