import Foundation
import LeakStore
import Testing

@Suite("POST /v1/projects/{project}/runs")
struct RunUploadTests {
    @Test func aGoodUploadIsStoredWithItsRows() throws {
        let server = try TestServer()
        let reply = try server.upload(RunFixture.body())
        #expect(reply.status == 201, "\(reply.text)")
        #expect(reply.json["created"] as? Bool == true)
        #expect(reply.json["checks"] as? Int == 3)
        #expect(reply.json["leaked"] as? Int == 1)
        #expect(reply.json["lateRelease"] as? Int == 1)
        let runID = try #require(reply.json["runID"] as? Int)

        #expect(try server.rowCounts() == [
            "runs": 1, "checks": 3, "commits": 1, "commit_parents": 1, "types": 2, "scenarios": 3, "leak_states": 3,
        ])
        try server.store.read { db in
            var run: [String] = []
            try db.query("""
                SELECT r.run_key, r.environment, r.started_at, r.tool_name, c.sha, c.branch, p.parent_sha, r.suspect
                FROM runs r JOIN commits c ON c.id = r.commit_id JOIN commit_parents p ON p.commit_id = c.id
                WHERE r.id = ?
                """, [.integer(Int64(runID))]) { row in
                run = (0..<8).map { row.string(at: Int32($0)) ?? "NULL" }
            }
            #expect(run == ["ci-1", "linux-swift6.3", "2026-11-30T02:10:00.000Z", "leakhistory", RunFixture.commit,
                            "main", RunFixture.parent, "0"])
            var leaked: [String] = []
            try db.query("""
                SELECT s.name, t.name, k.outcome, k.waited_ms, k.fingerprint, k.retain_path, cs.line
                FROM checks k JOIN scenarios s ON s.id = k.scenario_id JOIN types t ON t.id = k.type_id
                     JOIN check_sites cs ON cs.id = k.site_id
                WHERE k.outcome = 'leaked'
                """) { row in leaked = (0..<7).map { row.string(at: Int32($0)) ?? "NULL" } }
            #expect(leaked == ["ProfileTests/profileScreen()", "App.ProfileViewModel", "leaked", "2000.5", "fp-1",
                               #"[{"holder":"App.Coordinator","kind":"collection","property":"children[0]"}]"#, "12"])
            let state = try db.scalarText("""
                SELECT checked_count || '/' || leaked_count FROM leak_states ls JOIN leak_keys k ON k.id = ls.key_id
                JOIN types t ON t.id = k.type_id JOIN scenarios s ON s.id = k.scenario_id
                WHERE t.name = 'App.ProfileViewModel' AND s.name = 'ProfileTests/profileScreen()'
                  AND ls.environment_id = (SELECT id FROM environments WHERE name = 'linux-swift6.3')
                """)
            #expect(state == "1/1")
        }
    }

    @Test func theSameRunKeyAndContentAgainIsA200WithNothingAdded() throws {
        let server = try TestServer()
        let first = try server.upload(RunFixture.body())
        let before = try server.rowCounts()
        // Different key order and spacing: the same content.
        let reordered = try JSONSerialization.data(withJSONObject: RunFixture.run(), options: [.prettyPrinted])
        let second = try server.upload(reordered)
        #expect(second.status == 200, "\(second.text)")
        #expect(second.json["created"] as? Bool == false)
        #expect(second.json["runID"] as? Int == first.json["runID"] as? Int)
        #expect(second.json["checks"] as? Int == 3)
        #expect(try server.rowCounts() == before)
    }

    @Test func theSameRunKeyWithDifferentContentIsA409() throws {
        let server = try TestServer()
        _ = try server.upload(RunFixture.body())
        let before = try server.rowCounts()
        let changed = RunFixture.body(checks: [RunFixture.check(line: 13)])
        let reply = try server.upload(changed)
        #expect(reply.status == 409)
        #expect(reply.error?.code == "run_key_conflict")
        #expect(reply.error?.message.contains("runKey \"ci-1\"") == true)
        #expect(try server.rowCounts() == before)
    }

    @Test func aGzipBodyIsInflatedAndStored() throws {
        let server = try TestServer()
        let reply = try server.upload(gzipped(RunFixture.body()),
                                      headers: ["Authorization": "Bearer \(server.token)", "Content-Encoding": "gzip"])
        #expect(reply.status == 201, "\(reply.text)")
        #expect(try server.rowCounts()["checks"] == 3)
    }

    @Test func sqlLikeStringsAreStoredVerbatim() throws {
        let server = try TestServer()
        // (A NUL is refused: C strings would end there, and pages would show another name.)
        let scenario = "Robert'); DROP TABLE checks;--\u{7}after a BEL"
        let type = "App.\"Quoted\" OR 1=1; -- Ünïcødé 🚀"
        let reply = try server.upload(RunFixture.body(checks: [RunFixture.check(scenario: scenario, type: type)]))
        #expect(reply.status == 201, "\(reply.text)")
        let stored = try server.store.read { db in
            [try db.scalarText("SELECT name FROM scenarios"), try db.scalarText("SELECT name FROM types"),
             try db.scalarInt("SELECT count(*) FROM checks").map(String.init)]
        }
        #expect(stored == [scenario, type, "1"])
    }

    @Test func aRunThatMostlyLeaksIsMarkedSuspect() throws {
        let server = try TestServer()
        let checks = (0..<20).map { RunFixture.check(scenario: "S/\($0)()", outcome: $0 < 4 ? "deallocated" : "leaked") }
        let suspect = try server.upload(RunFixture.body(runKey: "mostly-leaks", checks: checks))
        #expect(suspect.json["suspect"] as? Bool == false, "16 of 20 is 80%, not more than 80%")
        let worse = (0..<20).map { RunFixture.check(scenario: "S/\($0)()", outcome: $0 < 3 ? "deallocated" : "error") }
        let reply = try server.upload(RunFixture.body(runKey: "all-errors", checks: worse))
        #expect(reply.json["suspect"] as? Bool == true)
        let small = (0..<19).map { RunFixture.check(scenario: "S/\($0)()", outcome: "leaked") }
        let smallReply = try server.upload(RunFixture.body(runKey: "small", checks: small))
        #expect(smallReply.json["suspect"] as? Bool == false, "under 20 checks a run is never suspect")
    }

    @Test func uploadsToTheSameCommitAddUpInTheLeakState() throws {
        let server = try TestServer()
        _ = try server.upload(RunFixture.body(runKey: "a", checks: [RunFixture.check(outcome: "leaked")]))
        _ = try server.upload(RunFixture.body(runKey: "b", checks: [RunFixture.check(outcome: "deallocated")]))
        let state = try server.store.read {
            try $0.scalarText("SELECT checked_count || '/' || leaked_count FROM leak_states")
        }
        #expect(state == "2/1")
        #expect(try server.rowCounts()["commits"] == 1)
    }
}
