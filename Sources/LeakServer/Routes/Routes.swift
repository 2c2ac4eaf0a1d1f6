/// The API's routes, in one list so that it reads like the API table in docs/DESIGN.md.
enum Routes {
    static func register(in router: inout Router) {
        router.post("/v1/projects/{project}/runs", handler: RunUploadRoute.handle)
        router.get("/v1/projects/{project}/commits/{sha}", handler: CommitRoute.handle)
        router.post("/v1/projects/{project}/resolve", handler: ResolveRoute.handle)
        router.get("/v1/projects/{project}/diff", handler: DiffRoute.handle)
        router.get("/v1/projects/{project}/types", handler: TypeRoutes.types)
        router.get("/v1/projects/{project}/types/{type}/trend", handler: TypeRoutes.trend)
        router.get("/v1/projects/{project}/scenarios/history", handler: ScenarioHistoryRoute.handle)
        router.post("/v1/projects/{project}/suppressions", handler: SuppressionRoutes.create)
        router.get("/v1/projects/{project}/suppressions", handler: SuppressionRoutes.list)
        router.on(.delete, "/v1/projects/{project}/suppressions/{id}", handler: SuppressionRoutes.delete)
        router.get("/healthz", handler: HealthRoute.handle)
        router.get("/metrics", handler: MetricsRoute.handle)
        router.get("/openapi.json", handler: OpenAPIRoute.handle)
        DashboardRoutes.register(in: &router)
    }
}
