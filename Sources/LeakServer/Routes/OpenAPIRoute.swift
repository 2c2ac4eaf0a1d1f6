/// `GET /openapi.json`: the OpenAPI 3.1 description of exactly the routes `Routes` registers
/// (a test compares the two).
enum OpenAPIRoute {
    @Sendable
    static func handle(_ request: Request, _ context: RequestContext) throws -> any ResponseGenerator {
        Response.text(OpenAPIDocument.json, contentType: "application/json")
    }
}
