import Foundation

/// A project history uploaded through the HTTP API, as CI would, for the dashboard tests:
/// six commits on `main` in `linux`, a type that leaks from commit 2 on with a retain path
/// (and is not checked at commit 4, a gap in its trend), one fixed at commit 4, and two types
/// and a scenario whose names are hostile markup, leaking at the head only.
enum DashboardFixture {
    static let script = "<script>alert(1)</script>"
    static let image = #""><img src=x onerror=alert(1)>"#
    static let hostileScenario = #"Evil/<b onmouseover="alert(1)">x()"#
    static let commits = 6

    static func sha(_ number: Int) -> String { HistoryFixture.sha(number) }

    /// Uploads the history to `server`'s project `app`.
    static func seed(_ server: TestServer) throws {
        for number in 1...commits {
            var checks: [[String: Any]] = (0..<8).map { check("Padding/p\($0)()", "App.Padding", "deallocated") }
            if number >= 2 && number != 4 {
                checks.append(check("CacheTests/evict()", "App.Cache", "leaked", fingerprint: "fp-cache",
                                    path: [("App.Coordinator", "children[0]", "collection"), ("App.Store", "cache", "strong")]))
            }
            if number >= 5 { checks.append(check("CacheTests/reload()", "App.Cache", "leaked", fingerprint: "fp-cache")) }
            checks.append(check("FixedTests/close()", "App.Fixed", number < 4 ? "leaked" : "deallocated", fingerprint: "fp-fixed"))
            if number == commits {
                checks.append(check(hostileScenario, script, "leaked", fingerprint: "<i>fp</i>",
                                    path: [(image, "<u>owner</u>", "strong")], message: "</td><script>alert(2)</script>"))
                checks.append(check("Evil/image()", image, "leaked"))
            }
            let run: [String: Any] = [
                "schema": "leakhistory.run/1", "project": "app", "commit": sha(number), "branch": "main",
                "parents": number == 1 ? [] : [sha(number - 1)], "environment": "linux", "runKey": "ci-\(number)",
                "startedAt": "2026-11-30T02:1\(number):00Z", "checks": checks,
            ]
            let reply = try server.upload(RunFixture.data(run))
            guard reply.status == 201 else { throw ClientError("upload \(number) answered \(reply.status): \(reply.text)") }
        }
    }

    /// A feature branch off commit 5 with one commit, `feature`: the cache still leaks, and a
    /// coordinator cycle with long names leaks in three scenarios under one long fingerprint;
    /// a second run there uses a long environment name.
    static let feature = "f00dfeed" + String(repeating: "ab", count: 16)
    static let featureBranch = "feature/login-screen"
    static let cycleFingerprint = "cycle-" + String(repeating: "0123456789abcdef", count: 4)
    static let longEnvironment = "linux-swift6.3-ubuntu-24.04-x86_64-debug-address-sanitizer-nightly"
    static let coordinator = "App.Onboarding.ProfileCoordinatorViewModelWithAVeryLongDescriptiveName"

    static func seedFeature(_ server: TestServer) throws {
        let path: [(String, String, String)] = [
            (coordinator, "children[0]", "collection"), ("App.Onboarding.ProfileScreenPresenterWithLongName", "interactor", "strong"),
            ("App.Onboarding.ProfileInteractorWithAnEvenLongerName", "onCompletionHandlerClosure", "closure"),
        ]
        var checks: [[String: Any]] = (0..<8).map { check("Padding/p\($0)()", "App.Padding", "deallocated") }
        checks.append(check("CacheTests/evict()", "App.Cache", "leaked", fingerprint: "fp-cache"))
        for scenario in ["OnboardingFlowTests/completesTheWholeProfileSetupWithoutNetworkAccess()",
                         "OnboardingFlowTests/cancelsHalfwayThroughAndReturnsToTheStartScreen()", "ProfileTests/open()"] {
            checks.append(check(scenario, coordinator, "leaked", fingerprint: cycleFingerprint, path: path,
                                message: "\(coordinator) is still alive 2000 ms after the test released it.\nHeld by: "
                                    + path.map { "\($0.0).\($0.1)" }.joined(separator: " → ")))
        }
        for (environment, key) in [("linux", "ci-feature"), (longEnvironment, "ci-feature-long")] {
            let run: [String: Any] = [
                "schema": "leakhistory.run/1", "project": "app", "commit": feature, "branch": featureBranch,
                "parents": [sha(5)], "environment": environment, "runKey": key,
                "startedAt": "2026-11-30T03:00:00Z", "checks": checks,
            ]
            let reply = try server.upload(RunFixture.data(run))
            guard reply.status == 201 else { throw ClientError("feature upload answered \(reply.status): \(reply.text)") }
        }
        // Two rules that cover nothing here, for the project page: one in force, one expired.
        for rule in [#"{"type":"App.Legacy*","reason":"legacy module, removed in Q1","expiresAt":"2099-01-01T00:00:00Z","createdBy":"ana@example.com"}"#,
                     #"{"fingerprint":"fp-old","reason":"until the rewrite","expiresAt":"2020-01-01T00:00:00Z"}"#] {
            let reply = try server.client.post("/v1/projects/app/suppressions", body: Data(rule.utf8),
                                               headers: ["Authorization": "Bearer \(server.token)", "Content-Type": "application/json"])
            guard reply.status == 201 else { throw ClientError("suppression answered \(reply.status): \(reply.text)") }
        }
    }

    private static func check(_ scenario: String, _ type: String, _ outcome: String, fingerprint: String? = nil,
                              path: [(String, String, String)] = [], message: String? = nil) -> [String: Any] {
        var object: [String: Any] = [
            "schema": "leakhistory.check/1", "scenario": scenario, "file": "CacheTests.swift", "line": 42, "type": type,
            "outcome": outcome, "waitedMs": 1.0, "timeoutMs": 2000, "lifecycle": "none", "timestamp": "2026-11-30T02:10:57.123Z",
        ]
        if let fingerprint { object["fingerprint"] = fingerprint }
        if let message { object["message"] = message }
        if !path.isEmpty { object["retainPath"] = path.map { ["holder": $0.0, "property": $0.1, "kind": $0.2] } }
        return object
    }
}
