/// One commit of a type's trend along a branch (`LeakStorage.trend`).
public struct TrendPoint: Sendable, Hashable {
    public var commit: String
    /// When the commit's first run started, ISO 8601.
    public var at: String
    /// Keys of the type that leaked at the commit.
    public var leakedKeys: Int
    /// Keys of the type that were checked at the commit; 0 where it was not checked at all.
    public var checkedKeys: Int
    /// Scenarios in which it leaked, sorted.
    public var scenarios: [String]
    /// The fingerprints of its leaks, sorted.
    public var fingerprints: [String]
}
