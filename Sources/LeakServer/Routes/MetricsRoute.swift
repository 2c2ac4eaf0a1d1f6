/// `GET /metrics`: Prometheus text exposition.
enum MetricsRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        Response.text(context.metrics.prometheusText(databaseBytes: context.store.sizeOnDisk()),
                      contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}
