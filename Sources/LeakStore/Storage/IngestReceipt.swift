/// What an ingest stored, or found already stored for the same `runKey`.
public struct IngestReceipt: Sendable, Hashable, Codable {
    /// The stored run's id: the first upload's when the run was already there.
    public var runID: Int64
    /// False when the run was already there with the same content and nothing was added.
    public var created: Bool
    public var checkCount: Int
    public var leakedCount: Int
    public var lateReleaseCount: Int
    public var errorCount: Int
    /// At least 20 checks, and more than 80% of them leaked or failed: more likely a broken harness
    /// than real leaks. Never a base; at a head it still counts, and fails the gate.
    public var suspect: Bool

    public init(runID: Int64, created: Bool, checkCount: Int, leakedCount: Int,
                lateReleaseCount: Int, errorCount: Int, suspect: Bool) {
        self.runID = runID
        self.created = created
        self.checkCount = checkCount
        self.leakedCount = leakedCount
        self.lateReleaseCount = lateReleaseCount
        self.errorCount = errorCount
        self.suspect = suspect
    }
}
