/// The API's routes, in one list so that it reads like the API table in docs/DESIGN.md.
enum Routes {
    static func register(in router: inout Router) {
        router.get("/v1/projects", handler: ProjectsRoute.handle)
        router.post("/v1/projects/{project}/runs", access: .write, checksCredentialInWrite: true, handler: RunUploadRoute.handle)
        router.get("/v1/projects/{project}/commits/{sha}", access: .read, handler: CommitRoute.handle)
        router.post("/v1/projects/{project}/resolve", access: .read, handler: ResolveRoute.handle)
        router.get("/v1/projects/{project}/diff", access: .read, handler: DiffRoute.handle)
        router.get("/v1/projects/{project}/types", access: .read, handler: TypeRoutes.types)
        router.get("/v1/projects/{project}/types/{type}/trend", access: .read, handler: TypeRoutes.trend)
        router.get("/v1/projects/{project}/scenarios/history", access: .read, handler: ScenarioHistoryRoute.handle)
        router.post("/v1/projects/{project}/suppressions", access: .write, handler: SuppressionRoutes.create)
        router.get("/v1/projects/{project}/suppressions", access: .read, handler: SuppressionRoutes.list)
        router.on(.delete, "/v1/projects/{project}/suppressions/{id}", access: .write, handler: SuppressionRoutes.delete)
        router.get("/healthz", access: .healthz, handler: HealthRoute.handle)
        router.get("/metrics", access: .metrics, handler: MetricsRoute.handle)
        router.get("/openapi.json", handler: OpenAPIRoute.handle)
        DashboardRoutes.register(in: &router)
    }
}
