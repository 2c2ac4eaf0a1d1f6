import Foundation
import LeakReport
import LeakStore

/// `POST /v1/projects/{project}/runs`: one run, visible all at once (`LeakStore.ingest`: a big run is stored in slices).
///
/// 201 with the receipt for a new run; 200 with the first run's receipt when the same `runKey`
/// comes again with the same content; 409 when it comes with different content.
enum RunUploadRoute {
    @Sendable
    static func handle(_ request: consuming Request, _ context: RequestContext) throws -> any ResponseGenerator {
        let project = request.parameter("project")
        // The body goes once parsed: a 100,000-check upload's ~25 MB of JSON is not kept while
        // its checks are stored (the peak of the server's memory).
        let run = try decode(request.body.take())
        try RunValidation(limits: context.configuration.limits).validate(run, urlProject: project)
        let credential = TokenCheck.inWrite(request, context)
        // Answered from the database's writer once the run is committed: the worker goes on to
        // the next request instead of sleeping until then and waking to answer.
        return DeferredResponse { answer in
            context.store.ingest(run, contentHash: nil, credential: credential) { stored in
                answer(stored.map { receipt in
                    if receipt.created { context.metrics.recordIngest(checks: receipt.checkCount) }
                    return response(receipt)
                })
            }
        }
    }

    /// The receipt, written straight out (`UploadReceipt.json()`).
    private static func response(_ receipt: IngestReceipt) -> Response {
        Response.json(written: UploadReceipt(runID: receipt.runID, created: receipt.created, checks: receipt.checkCount,
                                             leaked: receipt.leakedCount, lateRelease: receipt.lateReleaseCount,
                                             errors: receipt.errorCount, suspect: receipt.suspect).json(),
                      status: receipt.created ? 201 : 200)
    }

    private static func decode(_ body: Data) throws -> RunRecord {
        guard !body.isEmpty else {
            throw HTTPFailure.badRequest("the body is empty; send one run as JSON (schema leakhistory.run/1)",
                                         code: "invalid_report")
        }
        // Validated in place: a copy as a String would double a 32 MiB body's memory.
        guard (try? UTF8Span(validating: body.span)) != nil else {
            throw HTTPFailure.badRequest("the body is not valid UTF-8; JSON must be UTF-8", code: "invalid_report")
        }
        if let run = RunRecordParser.parse(body) { return run }
        try QueryInput.refuseDuplicateKeys(body, code: "invalid_report")
        do {
            return try JSONDecoder().decode(RunRecord.self, from: body)
        } catch let error as DecodingError {
            throw HTTPFailure.badRequest(describe(error, in: body), code: "invalid_report")
        }
    }

    /// The key path at fault, or for a syntax error (which `JSONDecoder` reports without a place)
    /// where in the body it is, as `JSONSerialization` finds it.
    private static func describe(_ error: DecodingError, in body: Data) -> String {
        guard case let .dataCorrupted(context) = error, context.codingPath.isEmpty else {
            return error.keyPathDescription
        }
        do {
            _ = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            if let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String {
                return "not valid JSON: \(detail)"
            }
        }
        return error.keyPathDescription
    }
}
