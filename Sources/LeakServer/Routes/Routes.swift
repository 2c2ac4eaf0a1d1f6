/// The API's routes, in one list so that it reads like the table in DESIGN.md.
enum Routes {
    static func register(in router: inout Router) {
        router.post("/v1/projects/{project}/runs", handler: RunUploadRoute.handle)
        router.get("/v1/projects/{project}/commits/{sha}", handler: CommitRoute.handle)
        router.get("/healthz", handler: HealthRoute.handle)
        router.get("/metrics", handler: MetricsRoute.handle)
        router.get("/openapi.json", handler: OpenAPIRoute.handle)
    }
}
