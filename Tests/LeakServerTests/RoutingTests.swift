import Foundation
import LeakReport
import LeakServer
import LeakStore
import Testing

@Suite("Routing and the service routes")
struct RoutingTests {
    @Test func aWrongMethodOnAKnownPathIsA405WithAllow() throws {
        let server = try TestServer()
        let reply = try server.client.get(server.runsPath)
        #expect(reply.status == 405)
        #expect(reply.headers["allow"] == "POST")
        #expect(reply.error?.code == "method_not_allowed")
        let delete = try server.client.send("DELETE", "/healthz", body: nil)
        #expect(delete.status == 405)
    }

    @Test func anUnknownRouteIsAJSON404() throws {
        let server = try TestServer()
        // `/` is the dashboard's projects page.
        for path in ["/nothing-here", "/v1/project", "/v1/projects/app/runs/extra", "/v2/projects/app/runs"] {
            let reply = try server.client.get(path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.headers["content-type"] == "application/json")
            #expect(reply.error?.message.contains("no route answers GET on this path") == true)
            // The client's own path is not echoed back.
            #expect(!reply.text.contains(path))
        }
    }

    @Test func theRouterBindsParametersAndTellsMissingFromWrongMethod() {
        var router = Router()
        router.post("/v1/projects/{project}/runs") { _, _ in Response(status: 204) }
        router.get("/healthz") { _, _ in Response(status: 200) }
        guard case let .found(route, parameters) = router.match(method: "POST", path: "/v1/projects/web/runs") else {
            Issue.record("expected a match")
            return
        }
        #expect(route.pattern == "/v1/projects/{project}/runs")
        #expect(parameters == ["project": "web"])
        guard case let .methodNotAllowed(allowed) = router.match(method: "PUT", path: "/v1/projects/web/runs") else {
            Issue.record("expected 405")
            return
        }
        #expect(allowed == [.post])
        guard case .notFound = router.match(method: "POST", path: "/v1/projects//runs") else {
            Issue.record("an empty parameter must not match")
            return
        }
    }

    @Test func aConnectionIsKeptAliveAcrossRequests() throws {
        let server = try TestServer()
        let replies = try server.client.getOnOneConnection("/healthz", times: 3)
        #expect(replies.map(\.status) == [200, 200, 200])
        #expect(replies.allSatisfy { $0.headers["connection"]?.lowercased() != "close" })
    }

    @Test func aPortInUseIsRefusedWithAHint() throws {
        let first = try TestServer()
        let second = #expect(throws: ServerStartError.self) {
            try TestServer { $0.port = first.port }
        }
        #expect(second?.description.contains("cannot listen on 127.0.0.1:\(first.port)") == true)
        #expect(second?.description.contains("try --port 0") == true)
    }

    @Test func healthzQueriesTheDatabase() throws {
        let server = try TestServer()
        let reply = try server.client.get("/healthz")
        #expect(reply.status == 200)
        #expect(reply.json["status"] as? String == "ok")
        #expect(reply.json["schemaVersion"] as? Int == Migration.latestVersion)
    }

    @Test(arguments: TestEngine.all)
    func metricsCountRequestsChecksAndTheDatabase(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let server = try TestServer(database: database)
        _ = try server.upload(RunFixture.body())
        _ = try server.upload(RunFixture.body())
        _ = try server.client.get("/nowhere")
        let text = try server.client.get("/metrics").text
        #expect(text.contains(#"leakhistory_http_requests_total{route="/v1/projects/{project}/runs",method="POST",status="201"} 1"#))
        #expect(text.contains(#"leakhistory_http_requests_total{route="/v1/projects/{project}/runs",method="POST",status="200"} 1"#))
        #expect(text.contains(#"leakhistory_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(text.contains(#"leakhistory_http_request_duration_seconds_count{route="/v1/projects/{project}/runs"} 2"#))
        #expect(text.contains("leakhistory_checks_ingested_total 3\n"))
        // SQLite's file and log, or the PostgreSQL schema's tables and indexes (the test's own schema).
        let size = text.split(separator: "\n").first { $0.hasPrefix("leakhistory_database_size_bytes ") }
        #expect((size?.split(separator: " ").last.flatMap { Int($0) } ?? 0) > 0)
    }

    @Test func theOpenAPIDocumentDescribesExactlyTheRoutesThatExist() throws {
        let server = try TestServer()
        let reply = try server.client.get("/openapi.json")
        #expect(reply.status == 200)
        let document = reply.json
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: Set<String> = []
        for (path, operations) in paths {
            for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") }
        }
        // The dashboard's HTML pages (`/`, `/p/…` and its sign-in form) are not part of the JSON API.
        let registered = Set(server.server.router.routes
            .filter { !["/", "/login", "/logout"].contains($0.pattern) && !$0.pattern.hasPrefix("/p/") }
            .map { "\($0.method.rawValue) \($0.pattern)" })
        #expect(documented == registered)
    }

    /// Every diff entry's evidence is in the document, member for member as the API writes it.
    /// Every step kind LeakCheck writes is one the upload schema accepts, and no other.
    @Test func theOpenAPIDocumentListsEveryRetainPathStepKind() throws {
        let server = try TestServer()
        let components = try #require(server.client.get("/openapi.json").json["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: [String: Any]])
        let step = try #require(schemas["RetainPathStep"]?["properties"] as? [String: [String: Any]])
        let kinds = try #require(step["kind"]?["enum"] as? [String])
        #expect(Set(kinds) == Set(RetainPathStep.Kind.allCases.map(\.rawValue)))
    }

    @Test func theOpenAPIDocumentDescribesEachEntrysEvidence() throws {
        let server = try TestServer()
        let components = try #require(server.client.get("/openapi.json").json["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: [String: Any]])
        let entry = try #require(schemas["DiffEntry"]?["properties"] as? [String: [String: Any]])
        #expect(entry["evidence"]?["$ref"] as? String == "#/components/schemas/GateEvidence")
        let documented = try #require(schemas["GateEvidence"]?["properties"] as? [String: Any])
        let written = GateEvidence(confirmedAtHead: true, headRuns: 1, headLeakedRuns: 1, headAttempts: 3, headLeakedAttempts: 3,
                                   recentRuns: 40, recentLeakedRuns: 0, commitsLookedAt: 40, sinceChange: 2,
                                   otherEnvironments: [.init(environment: "macos", countedAttempts: 1, recentRuns: 40, recentLeakedRuns: 2)],
                                   summary: "s")
        let members = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(written)) as? [String: Any])
        #expect(Set(documented.keys) == Set(members.keys))
        let other = try #require((documented["otherEnvironments"] as? [String: Any])?["items"] as? [String: Any])
        let otherMembers = try #require((members["otherEnvironments"] as? [[String: Any]])?.first)
        #expect(Set((other["properties"] as? [String: Any] ?? [:]).keys) == Set(otherMembers.keys))
    }
}
