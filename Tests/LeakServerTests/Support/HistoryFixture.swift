import Foundation
import LeakReport

/// Builds commit histories over HTTP for the query tests: runs of named checks at numbered
/// commits, with enough clean padding that a run with a leak is never suspect.
enum HistoryFixture {
    /// A 40-digit hex commit id made from a number, so that tests name commits 1, 2, 3.
    static func sha(_ number: Int) -> String {
        let digits = String(number, radix: 16)
        return String(repeating: "0", count: 40 - digits.count) + digits
    }

    /// One check: a key and its outcome.
    struct Check {
        var scenario: String
        var type: String
        var outcome: String
        var fingerprint: String? = nil
        var knownIssue = false
        var attempts: Int? = nil
        var leakedAttempts: Int? = nil

        static func leaked(_ scenario: String, _ type: String, fingerprint: String? = nil) -> Check {
            Check(scenario: scenario, type: type, outcome: "leaked", fingerprint: fingerprint)
        }
        static func clean(_ scenario: String, _ type: String) -> Check { Check(scenario: scenario, type: type, outcome: "deallocated") }

        var json: [String: Any] {
            var object: [String: Any] = [
                "schema": "leakhistory.check/1", "scenario": scenario, "file": "Tests.swift", "line": 7, "type": type,
                "outcome": outcome, "waitedMs": 1.0, "timeoutMs": 2000, "lifecycle": "none",
                "timestamp": "2026-11-30T02:10:57.123Z",
            ]
            if let fingerprint { object["fingerprint"] = fingerprint }
            if knownIssue { object["knownIssue"] = true }
            if let attempts { object["attempts"] = attempts }
            if let leakedAttempts { object["leakedAttempts"] = leakedAttempts }
            return object
        }
    }

    /// Clean checks added to every run (unless `pad` is false) so that leaks stay under 80%.
    static let padding = (0..<8).map { Check.clean("Padding/p\($0)()", "App.Padding") }

    static func runBody(project: String = "app", commit: String, branch: String? = "main", parents: [String] = [],
                        environment: String = "linux", runKey: String, checks: [Check], pad: Bool = true) -> Data {
        var run: [String: Any] = [
            "schema": "leakhistory.run/1", "project": project, "commit": commit, "parents": parents,
            "environment": environment, "runKey": runKey, "startedAt": "2026-11-30T02:10:00Z",
            "checks": (checks + (pad ? padding : [])).map(\.json),
        ]
        if let branch { run["branch"] = branch }
        return RunFixture.data(run)
    }
}

extension TestServer {
    /// Uploads one run to `app` and requires it to be stored.
    func uploadRun(commit: String, branch: String? = "main", parents: [String] = [], environment: String = "linux",
                   checks: [HistoryFixture.Check], pad: Bool = true) throws {
        let body = HistoryFixture.runBody(commit: commit, branch: branch, parents: parents, environment: environment,
                                          runKey: UUID().uuidString, checks: checks, pad: pad)
        let reply = try upload(body)
        guard reply.status == 201 else { throw ClientError("upload answered \(reply.status): \(reply.text)") }
    }

    /// GETs `path` and decodes a 200 answer.
    func get<Value: Decodable>(_ path: String, as type: Value.Type, headers: [String: String] = [:]) throws -> Value {
        let reply = try client.get(path, headers: headers)
        guard reply.status == 200 else { throw ClientError("GET \(path) answered \(reply.status): \(reply.text)") }
        return try JSONDecoder().decode(type, from: reply.body)
    }

    /// `base: nil` asks for the head alone (every leak unverified); `after` names the base
    /// branch's upload after the merge-base.
    func diff(base: Int?, head: Int, after: Int? = nil, environment: String = "linux") throws -> DiffResponse {
        var query = "head=\(HistoryFixture.sha(head))&environment=\(environment)"
        if let base { query += "&base=\(HistoryFixture.sha(base))" }
        if let after { query += "&after=\(HistoryFixture.sha(after))" }
        return try get("/v1/projects/app/diff?" + query, as: DiffResponse.self)
    }

    /// Uploads a first-parent line of runs on `branch`: commit `first + i` gets `runs[i]` (nil:
    /// no upload there), its parent the commit before.
    func uploadLine(from first: Int, branch: String = "main", parentOfFirst: Int? = nil, environment: String = "linux",
                    _ runs: [[HistoryFixture.Check]?]) throws {
        for (offset, checks) in runs.enumerated() {
            guard let checks else { continue }
            let number = first + offset
            let parent = offset == 0 ? parentOfFirst : number - 1
            try uploadRun(commit: HistoryFixture.sha(number), branch: branch, parents: parent.map { [HistoryFixture.sha($0)] } ?? [],
                          environment: environment, checks: checks)
        }
    }

    func resolve(_ candidates: [String], environment: String = "linux") throws -> HTTPClient.Reply {
        try client.post("/v1/projects/app/resolve",
                        body: try JSONEncoder().encode(ResolveRequest(environment: environment, candidates: candidates)))
    }

    var writeHeaders: [String: String] { ["Authorization": "Bearer \(token)"] }
}

extension DiffResponse {
    func entry(_ scenario: String, _ type: String) -> LeakDiff.Entry? {
        entries.first { $0.scenario == scenario && $0.type == type }
    }
}
