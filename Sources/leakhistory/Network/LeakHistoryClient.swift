import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GzipCoding
import LeakReport

/// The server's API as the CLI uses it. Connection errors and 5xx answers are retried, after the
/// server's `Retry-After` when it sent one, within `RetryPolicy`'s bounds (uploads are idempotent
/// by `runKey`, so a retry never stores twice).
struct LeakHistoryClient: Sendable {
    var settings: ClientSettings
    var retries = RetryPolicy()
    /// Where a retry is announced (stderr): a CI log then shows a busy server as such.
    var note: @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }

    func upload(_ run: RunRecord, gzip: Bool) async throws(CommandFailure) -> UploadReceipt {
        var body: Data
        do {
            body = try JSONEncoder().encode(run)
        } catch {
            throw CommandFailure("cannot encode the run: \(error)", code: .usage)
        }
        var headers = ["Content-Type": "application/json"]
        if gzip, let compressed = try? Gzip.compress(body) {
            body = compressed
            headers["Content-Encoding"] = "gzip"
        }
        return try await send("POST", projectPath("runs"), body: body, headers: headers)
    }

    /// The projects the server lets this caller use (`GET /v1/projects`).
    func projects() async throws(CommandFailure) -> [String] {
        let answer: ProjectsResponse = try await send("GET", ["v1", "projects"])
        return answer.projects
    }

    func resolve(_ request: ResolveRequest) async throws(CommandFailure) -> ResolveResponse {
        let body = (try? JSONEncoder().encode(request)) ?? Data()
        return try await send("POST", projectPath("resolve"), body: body, headers: ["Content-Type": "application/json"])
    }

    /// Without `base`, every leak at head comes back unverified. `after`: the base branch's
    /// nearest upload after `mergeBase`, whose leaks are inherited where the base's data ran
    /// out.
    func diff(base: String?, head: String, mergeBase: String? = nil, after: String? = nil) async throws(CommandFailure) -> DiffResponse {
        var query = ["head": head, "environment": settings.environment]
        query["base"] = base
        query["mergeBase"] = mergeBase
        query["after"] = after
        return try await send("GET", projectPath("diff"), query: query)
    }

    /// Every page of the types.
    func types(branch: String) async throws(CommandFailure) -> TypesResponse {
        try await allPages(projectPath("types"), query: ["branch": branch, "environment": settings.environment],
                           next: \.next) { $0.types += $1.types; $0.next = $1.next }
    }

    func trend(type: String, branch: String, limit: Int) async throws(CommandFailure) -> TrendResponse {
        try await send("GET", projectPath("types", type, "trend"),
                       query: ["branch": branch, "limit": String(limit), "environment": settings.environment])
    }

    func addSuppression(_ draft: SuppressionDraft) async throws(CommandFailure) -> SuppressionRecord {
        let body = (try? JSONEncoder().encode(draft)) ?? Data()
        return try await send("POST", projectPath("suppressions"), body: body, headers: ["Content-Type": "application/json"])
    }

    /// Every page of the suppressions.
    func suppressions() async throws(CommandFailure) -> SuppressionList {
        try await allPages(projectPath("suppressions"), query: [:], next: \.next) {
            $0.suppressions += $1.suppressions
            $0.next = $1.next
        }
    }

    /// A list the server answers a page at a time (`limit`, `cursor`, `next`), whole: the pages
    /// in turn, each appended to the first by `append`, until one comes without `next`.
    private func allPages<Page: Decodable>(_ path: [String], query: [String: String], next: (Page) -> String?,
                                           append: (inout Page, Page) -> Void) async throws(CommandFailure) -> Page {
        var query = query
        query["limit"] = "1000"
        var all: Page = try await send("GET", path, query: query)
        while let cursor = next(all) {
            query["cursor"] = cursor
            append(&all, try await send("GET", path, query: query))
        }
        return all
    }

    func removeSuppression(id: Int) async throws(CommandFailure) {
        let _: NoContent = try await send("DELETE", projectPath("suppressions", String(id)))
    }

    /// The answer of a request that returns nothing (204).
    private struct NoContent: Decodable {}

    private func projectPath(_ components: String...) -> [String] {
        ["v1", "projects", settings.project] + components
    }

    private func send<Answer: Decodable>(
        _ method: String, _ path: [String], query: [String: String] = [:], body: Data? = nil, headers: [String: String] = [:]
    ) async throws(CommandFailure) -> Answer {
        let url = self.url(path, query: query)
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let token = settings.token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }

        var policy = retries
        while true {
            let outcome: Result<(Data, HTTPURLResponse), any Error>
            do {
                let (data, response) = try await URLSession.shared.data(for: request)
                outcome = .success((data, response as! HTTPURLResponse))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case let .success((data, response)) where (200..<300).contains(response.statusCode):
                if data.isEmpty, let nothing = NoContent() as? Answer { return nothing }
                do {
                    return try Self.decoder.decode(Answer.self, from: data)
                } catch {
                    throw CommandFailure("The server at \(settings.server.absoluteString) answered \(method) \(url.path) with something this version cannot read (\(error)). Is it a LeakHistory server of a matching version?", code: .unavailable)
                }
            case let .success((data, response)) where response.statusCode < 500:
                throw failure(status: response.statusCode, body: data, method: method, url: url)
            case let .success((data, response)):
                let retryAfter = RetryPolicy.seconds(inRetryAfter: response.value(forHTTPHeaderField: "Retry-After"))
                guard let wait = policy.nextWait(retryAfter: retryAfter) else {
                    throw failure(status: response.statusCode, body: data, method: method, url: url, attempts: policy.attempts)
                }
                note("Note: the server at \(settings.server.absoluteString) answered \(method) \(url.path) with \(response.statusCode)"
                    + "\(retryAfter.map { " (busy: Retry-After \($0) s)" } ?? ""); asking again in \(Self.seconds(wait)) (attempt \(policy.attempts)).")
                try? await Task.sleep(for: wait)
            case let .failure(error):
                guard let wait = policy.nextWait(retryAfter: nil) else {
                    throw CommandFailure(
                        "Cannot reach the LeakHistory server at \(settings.server.absoluteString) (\(error.localizedDescription)) after \(policy.attempts) attempts. Check --server / LEAKHISTORY_SERVER and that the server is running.",
                        code: .unavailable)
                }
                note("Note: no answer from the server at \(settings.server.absoluteString) to \(method) \(url.path) "
                    + "(\(error.localizedDescription)); asking again in \(Self.seconds(wait)) (attempt \(policy.attempts)).")
                try? await Task.sleep(for: wait)
            }
        }
    }

    private func failure(status: Int, body: Data, method: String, url: URL, attempts: Int = 1) -> CommandFailure {
        let serverMessage = (try? JSONDecoder().decode(APIErrorBody.self, from: body)).map { "\($0.error.message) (\($0.error.code))" }
            ?? String(decoding: body.prefix(300), as: UTF8.self)
        let prefix = "The server at \(settings.server.absoluteString) refused \(method) \(url.path) with \(status)"
        switch status {
        case 401:
            return CommandFailure("\(prefix): \(serverMessage). Pass a token of project '\(settings.project)' with --token or LEAKHISTORY_TOKEN.", code: .usage)
        case 403:
            return CommandFailure("\(prefix): \(serverMessage). The token belongs to another project or lacks the right; use a write token of '\(settings.project)'.", code: .usage)
        case 400..<500:
            return CommandFailure("\(prefix): \(serverMessage)", code: .usage)
        default:
            let tries = attempts > 1 ? " (after \(attempts) attempts)" : ""
            return CommandFailure("\(prefix)\(tries): \(serverMessage). Try again later; the server's log has the details.", code: .unavailable)
        }
    }

    private func url(_ path: [String], query: [String: String]) -> URL {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        let encoded = path.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: "/")
        let base = settings.server.absoluteString.hasSuffix("/") ? String(settings.server.absoluteString.dropLast()) : settings.server.absoluteString
        var components = URLComponents(string: base + "/" + encoded)!
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        return components.url!
    }

    private static let decoder = JSONDecoder()

    /// `1.3 s`.
    private static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }
}
