/// `GET /healthz`: 200 when a query on the database answers, 503 otherwise — what a load
/// balancer asks before it sends a server traffic.
enum HealthRoute {
    struct Health: Encodable, ResponseGenerator {
        var status: String
        var schemaVersion: Int
    }

    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        do {
            try context.store.checkHealth()
            return Health(status: "ok", schemaVersion: try context.store.schemaVersion())
        } catch {
            RequestLog.problem("health check failed: \(error)")
            throw HTTPFailure(503, "unavailable", "the database does not answer; the server log says why",
                              headers: ["Retry-After": "2"])
        }
    }
}
