import Foundation
import Synchronization

/// Counters the server keeps for `GET /metrics`, safe to update from any request thread.
final class ServerMetrics: Sendable {
    /// Upper bounds of the latency histogram's buckets, in seconds.
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct RouteStatus: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct Histogram {
        var buckets = [UInt64](repeating: 0, count: ServerMetrics.latencyBuckets.count)
        var count: UInt64 = 0
        var sum: Double = 0
    }

    private struct State {
        var requests: [RouteStatus: UInt64] = [:]
        var latency: [String: Histogram] = [:]
        var checksIngested: UInt64 = 0
        var runsIngested: UInt64 = 0
    }

    private let state = Mutex(State())
    let inFlight = RequestsInFlight()
    let refusals = HTTPRefusals()

    /// Records one answered request under its route pattern (`unmatched` when none matched).
    func record(route: String, method: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RouteStatus(route: route, method: method, status: status), default: 0] += 1
            var histogram = state.latency[route] ?? Histogram()
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound {
                histogram.buckets[index] += 1
            }
            histogram.count += 1
            histogram.sum += seconds
            state.latency[route] = histogram
        }
    }

    func recordIngest(checks: Int) {
        state.withLock {
            $0.checksIngested += UInt64(checks)
            $0.runsIngested += 1
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    func prometheusText(databaseBytes: Int64?) -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        out += "# HELP leakhistory_http_requests_total HTTP requests answered, by route, method and status.\n"
        out += "# TYPE leakhistory_http_requests_total counter\n"
        for (key, count) in snapshot.requests.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            out += "leakhistory_http_requests_total{route=\"\(Self.escape(key.route))\",method=\"\(Self.escape(key.method))\",status=\"\(key.status)\"} \(count)\n"
        }
        out += "# HELP leakhistory_http_request_duration_seconds Time from a request's last byte to its response, by route.\n"
        out += "# TYPE leakhistory_http_request_duration_seconds histogram\n"
        for (route, histogram) in snapshot.latency.sorted(by: { $0.key < $1.key }) {
            let label = "route=\"\(Self.escape(route))\""
            for (index, bound) in Self.latencyBuckets.enumerated() {
                out += "leakhistory_http_request_duration_seconds_bucket{\(label),le=\"\(bound)\"} \(histogram.buckets[index])\n"
            }
            out += "leakhistory_http_request_duration_seconds_bucket{\(label),le=\"+Inf\"} \(histogram.count)\n"
            out += "leakhistory_http_request_duration_seconds_sum{\(label)} \(histogram.sum)\n"
            out += "leakhistory_http_request_duration_seconds_count{\(label)} \(histogram.count)\n"
        }
        out += "# HELP leakhistory_checks_ingested_total Checks stored by uploads since the server started.\n"
        out += "# TYPE leakhistory_checks_ingested_total counter\n"
        out += "leakhistory_checks_ingested_total \(snapshot.checksIngested)\n"
        out += "# HELP leakhistory_runs_ingested_total Runs stored by uploads since the server started.\n"
        out += "# TYPE leakhistory_runs_ingested_total counter\n"
        out += "leakhistory_runs_ingested_total \(snapshot.runsIngested)\n"
        out += "# HELP leakhistory_http_requests_in_flight Requests received and not yet answered, this one included.\n"
        out += "# TYPE leakhistory_http_requests_in_flight gauge\n"
        out += "leakhistory_http_requests_in_flight \(inFlight.count)\n"
        out += "# HELP leakhistory_http_overloaded_total Requests answered 503 overloaded (worker queue, busy client, connection slots, unread answers).\n"
        out += "# TYPE leakhistory_http_overloaded_total counter\n"
        out += "leakhistory_http_overloaded_total \(refusals.overloaded)\n"
        out += "# HELP leakhistory_http_deadline_cutoffs_total Connections closed for not sending a whole request within the deadline.\n"
        out += "# TYPE leakhistory_http_deadline_cutoffs_total counter\n"
        out += "leakhistory_http_deadline_cutoffs_total \(refusals.deadlineCutOffs)\n"
        out += "# HELP leakhistory_http_stalled_gave_way_total Connections without request headers shut down to let a new one from their address in.\n"
        out += "# TYPE leakhistory_http_stalled_gave_way_total counter\n"
        out += "leakhistory_http_stalled_gave_way_total \(refusals.stalledGaveWay)\n"
        if let databaseBytes {
            out += "# HELP leakhistory_database_size_bytes The database on disk: SQLite's file and write-ahead log, "
                + "or PostgreSQL's tables and indexes in the server's schema.\n"
            out += "# TYPE leakhistory_database_size_bytes gauge\n"
            out += "leakhistory_database_size_bytes \(databaseBytes)\n"
        }
        return out
    }

    private static func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
