import Foundation
import GzipCoding
import LeakReport
import LeakStore

/// Turns one incoming request into one response: body limits and decompression, routing,
/// error mapping, metrics and the log line. Runs on libmicrohttpd's threads.
final class Dispatcher: Sendable {
    let router: Router
    let context: RequestContext

    init(router: Router, context: RequestContext) {
        self.router = router
        self.context = context
    }

    func dispatch(_ incoming: MicroHTTPDServer.Incoming) -> Response {
        let clock = ContinuousClock()
        let started = clock.now
        var routeLabel = "unmatched"
        var note: String?
        var response: Response
        do {
            response = try route(incoming, routeLabel: &routeLabel)
        } catch let error as any HTTPError {
            if error.status >= 500 {
                // A full disk or a database that went away: the operator must hear of it first.
                note = error.message
                RequestLog.problem("\(incoming.method) \(incoming.path): \(error)")
            }
            response = .error(error)
        } catch let error as DecodingError {
            response = .error(HTTPFailure.badRequest(error.keyPathDescription, code: "invalid_report"))
        } catch {
            // The cause goes to the log only: a client learns nothing about the internals.
            note = "internal error: \(error)"
            RequestLog.problem("\(incoming.method) \(incoming.path): \(error)")
            response = .error(HTTPFailure(500, "internal_error", "the server failed to answer this request; the server log says why"))
        }
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // Known methods only, so that a client inventing methods cannot grow the metrics without bound.
        let methodLabel = HTTPMethod(rawValue: incoming.method)?.rawValue ?? "other"
        context.metrics.record(route: routeLabel, method: methodLabel, status: response.status, seconds: seconds)
        if context.configuration.logRequests {
            RequestLog.write(method: incoming.method, path: incoming.path, status: response.status, seconds: seconds,
                             bytesIn: incoming.body.count, note: note)
        }
        return response
    }

    private func route(_ incoming: MicroHTTPDServer.Incoming, routeLabel: inout String) throws -> Response {
        let limits = context.configuration.limits
        if incoming.bodyTooLarge {
            throw HTTPFailure.payloadTooLarge(
                "the request body is larger than the limit of \(limits.maxBodyBytes) bytes; split the upload, "
                    + "or send it with Content-Encoding: gzip")
        }
        switch router.match(method: incoming.method, path: incoming.path) {
        case .notFound:
            throw HTTPFailure.notFound("no route \(incoming.method) \(incoming.path); GET /openapi.json lists the routes")
        case let .methodNotAllowed(allowed):
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            throw HTTPFailure(405, "method_not_allowed", "\(incoming.path) answers \(names), not \(incoming.method)",
                              headers: ["Allow": names])
        case let .found(route, parameters):
            routeLabel = route.pattern
            var request = Request(method: incoming.method, path: incoming.path, query: incoming.query,
                                  headers: incoming.headers, body: try decodedBody(incoming, limits: limits))
            request.parameters = parameters
            return try route.handler(request, context).response()
        }
    }

    /// The body with any `Content-Encoding` undone.
    private func decodedBody(_ incoming: MicroHTTPDServer.Incoming, limits: IngestLimits) throws -> Data {
        let encoding = (incoming.headers["content-encoding"] ?? "identity").trimmingCharacters(in: .whitespaces).lowercased()
        switch encoding {
        case "identity", "":
            return incoming.body
        case "gzip", "x-gzip":
            do {
                return try Gzip.inflate(incoming.body, limit: limits.maxDecompressedBytes)
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
