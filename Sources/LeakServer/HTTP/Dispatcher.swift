import Foundation
import GzipCoding
import LeakReport
import LeakStore

/// Turns one incoming request into one response: body limits and decompression, routing,
/// error mapping, metrics and the log line: `admit` on the headers (I/O thread), `dispatch` on a worker
/// (its answer, for a handler that answers later, from the thread that answers).
final class Dispatcher: Sendable {
    let router: Router
    let context: RequestContext

    init(router: Router, context: RequestContext) {
        self.router = router
        self.context = context
    }

    /// Decides on the headers alone, before any body byte is read: an unknown route, a body
    /// announced over the limit, or a missing credential is answered at once (and the connection
    /// closed when a body was on its way); a credential is checked on a worker before the body is
    /// read, unless the store remembers it as live for this route (`TokenCheck.remembered`):
    /// then the body is read at once and `dispatch` checks the credential against the database
    /// before the handler runs (or leaves it to the handler's write, `TokenCheck.leftToWrite`).
    /// Runs on libmicrohttpd's I/O thread, so nothing here touches the database.
    func admit(_ head: MicroHTTPDServer.Head) -> MicroHTTPDServer.Admission {
        let clock = ContinuousClock()
        let started = clock.now
        var routeLabel = "unmatched"
        var matched: (Router.Route, Request)?
        do {
            let (route, request) = try match(head, body: Data(), routeLabel: &routeLabel)
            matched = (route, request)
            let limits = context.configuration.limits
            if let length = head.headers["content-length"].flatMap(Int.init), length > limits.maxBodyBytes {
                throw tooLarge(limits)
            }
            guard TokenCheck.needsCredential(route.access, context.configuration) else { return .proceed }
            guard TokenCheck.hasCredential(route.access, request) else {
                try TokenCheck.authorize(route.access, request, context)
                return .proceed
            }
            // Without a body there is nothing to protect, and a body sent with a token found live
            // lately is read at once: the check runs with the handler.
            guard head.hasBody, !TokenCheck.remembered(route.access, request, context) else { return .proceed }
            let label = routeLabel
            return .check { [self] in
                do {
                    try TokenCheck.authorize(route.access, request, context)
                    return nil
                } catch {
                    return finish(head, bytesIn: 0, started: started, routeLabel: label,
                                  failure(error, head: head, route: route, request: request))
                }
            }
        } catch {
            return .refuse(finish(head, bytesIn: 0, started: started, routeLabel: routeLabel,
                                  failure(error, head: head, route: matched?.0, request: matched?.1)))
        }
    }

    /// Answers a request read in full: calls `answer` once, on the worker, or for a handler
    /// that answers later (`DeferredResponse`) on the thread it answers from. Runs on a worker.
    func dispatch(_ incoming: consuming MicroHTTPDServer.Incoming, answer: @escaping @Sendable (Response) -> Void) {
        let started = ContinuousClock.now
        let head = incoming.head, bytesIn = incoming.body.count
        var routeLabel = "unmatched"
        var route: Router.Route?
        var request: Request?
        let response: Response
        do {
            let limits = context.configuration.limits
            let matched = try match(head, body: Data(), routeLabel: &routeLabel)
            route = matched.0
            request = matched.1
            // Unless a worker checked it before the body was read, the credential is checked now,
            // before anything is decoded or stored; or, for a route that checks it in its own
            // write, there (`TokenCheck.leftToWrite`).
            if !incoming.credentialChecked {
                TokenCheck.noteUnneededToken(matched.0.access, matched.1, context)
                if TokenCheck.leftToWrite(matched.0, matched.1, context) {
                    request?.credentialLeftToWrite = true
                } else {
                    try TokenCheck.authorize(matched.0.access, matched.1, context)
                }
            }
            if incoming.bodyTooLarge { throw tooLarge(limits) }
            // The body goes on to the handler alone, which may let go of it once parsed: a
            // 100,000-check upload's bytes are not kept while its checks are stored.
            var handed = request
            handed?.body = try decodedBody(incoming.body.take(), head: head, limits: limits)
            let generator = try matched.0.handler(handed.take()!, context)
            if let deferred = generator as? DeferredResponse {
                let (label, route, request) = (routeLabel, route, request)
                deferred.start { [self] result in
                    let response = switch result {
                    case let .success(answered): answered
                    case let .failure(error): failure(error, head: head, route: route, request: request)
                    }
                    // Counted (and logged) before it is answered, as any answer is: a client that has
                    // its answer finds it in `/metrics` (answered first, the second of two uploads was
                    // missing from a `/metrics` read right after it, now and then).
                    answer(finish(head, bytesIn: bytesIn, started: started, routeLabel: label, response))
                }
                return
            }
            response = try generator.response()
        } catch {
            response = failure(error, head: head, route: route, request: request)
        }
        answer(finish(head, bytesIn: bytesIn, started: started, routeLabel: routeLabel, response))
    }

    private func match(_ head: MicroHTTPDServer.Head, body: Data,
                       routeLabel: inout String) throws -> (Router.Route, Request) {
        switch router.match(method: head.method, path: head.path) {
        case .notFound:
            // The path is not echoed: it is the client's own text, and a JSON body is no place for it.
            throw HTTPFailure.notFound("no route answers \(HTTPMethod(rawValue: head.method)?.rawValue ?? "this method") "
                + "on this path; GET /openapi.json lists the routes")
        case let .methodNotAllowed(allowed):
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            throw HTTPFailure(405, "method_not_allowed", "this path answers \(names) only", headers: ["Allow": names])
        case let .found(route, parameters):
            routeLabel = route.pattern
            var request = Request(method: head.method, path: head.path, query: head.query, headers: head.headers, body: body)
            request.parameters = parameters
            return (route, request)
        }
    }

    private func tooLarge(_ limits: IngestLimits) -> HTTPFailure {
        HTTPFailure.payloadTooLarge(
            "the request body is larger than the limit of \(limits.maxBodyBytes) bytes; split the upload, "
                + "or send it with Content-Encoding: gzip")
    }

    /// The answer for an error: its own status for an `HTTPError` (drawn by the route when it
    /// draws its own failures), a logged 500 that says nothing of the internals otherwise.
    private func failure(_ error: any Error, head: MicroHTTPDServer.Head, route: Router.Route?, request: Request?) -> Response {
        let httpError: any HTTPError
        switch error {
        case let error as any HTTPError:
            // A full disk, a database that went away, a query over its budget: answered as what
            // it is, and logged, since the operator must hear of it first.
            if error.status >= 500 { RequestLog.problem("\(head.method) \(head.path): \(error)") }
            httpError = error
        case let error as DecodingError:
            httpError = HTTPFailure.badRequest(error.keyPathDescription, code: "invalid_report")
        default:
            RequestLog.problem("\(head.method) \(head.path): \(error)")
            httpError = HTTPFailure(500, "internal_error", "the server failed to answer this request; the server log says why")
        }
        if let present = route?.presentFailure, let request { return present(request, httpError) }
        return .error(httpError)
    }

    /// Metrics and the log line for every answer, admitted or refused.
    private func finish(_ head: MicroHTTPDServer.Head, bytesIn: Int, started: ContinuousClock.Instant, routeLabel: String,
                        _ response: Response) -> Response {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // Known methods only, so that a client inventing methods cannot grow the metrics without bound.
        let methodLabel = HTTPMethod(rawValue: head.method)?.rawValue ?? "other"
        context.metrics.record(route: routeLabel, method: methodLabel, status: response.status, seconds: seconds)
        if context.configuration.logRequests {
            RequestLog.write(client: head.client, method: head.method, path: head.path, status: response.status, seconds: seconds,
                             bytesIn: bytesIn, note: response.status >= 500 ? "status \(response.status)" : nil)
        }
        return response
    }

    /// The body with any `Content-Encoding` undone.
    private func decodedBody(_ body: Data, head: MicroHTTPDServer.Head, limits: IngestLimits) throws -> Data {
        // Most bodies carry no encoding: Foundation's trimming cost a small upload more than its validation.
        guard let header = head.headers["content-encoding"] else { return body }
        let encoding = header.trimmingCharacters(in: .whitespaces).lowercased()
        switch encoding {
        case "identity", "":
            return body
        case "gzip", "x-gzip":
            do {
                return try Gzip.inflate(body, limit: limits.maxDecompressedBytes)
            } catch .tooLarge(let limit) {
                throw HTTPFailure.payloadTooLarge(
                    "the gzip body inflates to more than the limit of \(limit) bytes; split the upload")
            } catch .corrupt(let detail) {
                throw HTTPFailure.badRequest("the body is marked Content-Encoding: gzip but is not valid gzip (\(detail))",
                                             code: "invalid_encoding")
            }
        default:
            throw HTTPFailure(415, "unsupported_encoding",
                              "Content-Encoding \"\(encoding)\" is not supported; send identity or gzip")
        }
    }
}
