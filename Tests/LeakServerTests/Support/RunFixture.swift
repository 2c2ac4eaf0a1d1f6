import Foundation

/// Upload bodies built as JSON objects, so a test can break exactly one field.
enum RunFixture {
    static let commit = "0123456789abcdef0123456789abcdef01234567"
    static let parent = "89abcdef0123456789abcdef0123456789abcdef"

    static func check(scenario: String = "ProfileTests/profileScreen()", type: String = "App.ProfileViewModel",
                      outcome: String = "leaked", line: Int = 12) -> [String: Any] {
        [
            "schema": "leakhistory.check/1", "scenario": scenario, "file": "ProfileTests.swift", "line": line,
            "type": type, "outcome": outcome, "waitedMs": 2000.5, "timeoutMs": 2000, "lifecycle": "none",
            "timestamp": "2026-11-30T02:10:57.123Z", "source": "test", "fingerprint": "fp-1",
            "retainPath": [["holder": "App.Coordinator", "property": "children[0]", "kind": "collection"]],
        ]
    }

    static func run(project: String = "app", runKey: String = "ci-1", checks: [[String: Any]]? = nil) -> [String: Any] {
        [
            "schema": "leakhistory.run/1", "project": project, "commit": commit, "branch": "main",
            "parents": [parent], "environment": "linux-swift6.3", "runKey": runKey,
            "startedAt": "2026-11-30T02:10:00Z", "tool": ["name": "leakhistory", "version": "0.1.0"],
            "checks": checks ?? [check(), check(scenario: "ProfileTests/close()", outcome: "deallocated"),
                                 check(scenario: "SettingsTests/open()", type: "App.SettingsModel", outcome: "lateRelease")],
        ]
    }

    static func data(_ object: [String: Any]) -> Data {
        try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    static func body(runKey: String = "ci-1", checks: [[String: Any]]? = nil) -> Data {
        data(run(runKey: runKey, checks: checks))
    }
}
