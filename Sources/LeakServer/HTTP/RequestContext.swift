import LeakStore

/// What a handler can reach besides its request: the store, the configuration and the metrics.
public struct RequestContext: Sendable {
    public let store: any LeakStorage
    public let configuration: ServerConfiguration
    let metrics: ServerMetrics
    let sessions: DashboardSessions
}
