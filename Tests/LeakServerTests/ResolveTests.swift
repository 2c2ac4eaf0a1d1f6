import Foundation
import LeakReport
import Testing

@Suite("POST /v1/projects/{project}/resolve")
struct ResolveTests {
    let sha = HistoryFixture.sha

    func resolved(_ server: TestServer, _ candidates: [Int], environment: String = "linux") throws -> ResolveResponse {
        let reply = try server.resolve(candidates.map(sha), environment: environment)
        #expect(reply.status == 200, "\(reply.text)")
        return try JSONDecoder().decode(ResolveResponse.self, from: reply.body)
    }

    @Test func theBaseFallsBackToTheNearestAncestorWithData() throws {
        let server = try TestServer()
        try server.uploadRun(commit: sha(1), checks: [])
        try server.uploadRun(commit: sha(3), checks: [])
        #expect(try resolved(server, [5, 4, 3, 2, 1]) == ResolveResponse(base: sha(3), distance: 2, searched: 3))
        #expect(try resolved(server, [1, 3]) == ResolveResponse(base: sha(1), distance: 0, searched: 1))
    }

    @Test func noBaseAtAllIsAnExplicitAnswer() throws {
        let server = try TestServer()
        let reply = try server.resolve([sha(7), sha(8), sha(9)])
        #expect(reply.status == 200)
        #expect(try JSONDecoder().decode(ResolveResponse.self, from: reply.body) == ResolveResponse(base: nil, distance: nil, searched: 3))
        #expect(try resolved(server, []) == ResolveResponse(base: nil, distance: nil, searched: 0))
    }

    @Test func aRunOfAnotherEnvironmentIsNeverTheBase() throws {
        let server = try TestServer()
        try server.uploadRun(commit: sha(2), environment: "linux", checks: [])
        try server.uploadRun(commit: sha(1), environment: "macos", checks: [])
        #expect(try resolved(server, [2, 1], environment: "macos") == ResolveResponse(base: sha(1), distance: 1, searched: 2))
        #expect(try resolved(server, [1], environment: "linux").base == nil)
    }

    @Test func aSuspectRunIsNeverTheBase() throws {
        let server = try TestServer()
        // Suspect: 20 checks (the floor below which no run is suspect), every one leaked.
        try server.uploadRun(commit: sha(2), checks: (0..<20).map { .leaked("A/a\($0)()", "App.A") }, pad: false)
        try server.uploadRun(commit: sha(1), checks: [.leaked("A/a()", "App.A")])
        #expect(try resolved(server, [2, 1]) == ResolveResponse(base: sha(1), distance: 1, searched: 2))
    }

    /// The candidates are asked about a batch a statement (`StoreTuning.candidatesPerStatement`): the nearest
    /// usable one wins wherever the batches split them, a suspect or other environment's run is
    /// stepped over in every batch, and a later batch is not asked once one answered.
    @Test(arguments: TestEngine.all)
    func theNearestOfManyCandidatesWinsAcrossBatches(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        let everyKeyLeaked = (0..<20).map { HistoryFixture.Check.leaked("A/a\($0)()", "App.A") }
        try server.uploadRun(commit: sha(60), checks: everyKeyLeaked, pad: false)  // suspect: never the base
        try server.uploadRun(commit: sha(55), environment: "macos", checks: [])
        try server.uploadRun(commit: sha(40), checks: [])
        try server.uploadRun(commit: sha(38), checks: [])
        try server.uploadRun(commit: sha(2), checks: [])
        // Nearest first, as the CLI sends first parents: 70, 69, …, 1.
        let line = Array((1...70).reversed())
        #expect(try resolved(server, line) == ResolveResponse(base: sha(40), distance: 30, searched: 31))
        #expect(try resolved(server, Array(line.dropFirst(31))) == ResolveResponse(base: sha(38), distance: 1, searched: 2))
        // Only the last batch has one, and a candidate repeated before it changes nothing.
        #expect(try resolved(server, Array(repeating: 70, count: 64) + [60, 55, 2, 40])
                == ResolveResponse(base: sha(2), distance: 66, searched: 67))
        #expect(try resolved(server, Array(61...70)).base == nil)
    }

    @Test func upperCaseCandidatesMatchTheStoredCommit() throws {
        let server = try TestServer()
        let upper = "ABCDEF0123456789ABCDEF0123456789ABCDEF01"
        try server.uploadRun(commit: upper.lowercased(), checks: [])
        let reply = try server.resolve([upper])
        #expect(try JSONDecoder().decode(ResolveResponse.self, from: reply.body).base == upper.lowercased())
    }
}
