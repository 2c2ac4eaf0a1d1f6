import Foundation

/// The answer to `POST /v1/projects/{project}/runs`: 201 with `created` true for a new run, 200
/// with the first run's receipt when the same `runKey` comes again.
public struct UploadReceipt: Codable, Sendable, Hashable {
    public var runID: Int64
    public var created: Bool
    public var checks: Int
    public var leaked: Int
    public var lateRelease: Int
    public var errors: Int
    /// At least 20 checks, and more than 80% of them leaked or errored: likely an infrastructure failure, so the
    /// run is never used as a base.
    public var suspect: Bool

    public init(runID: Int64, created: Bool, checks: Int, leaked: Int, lateRelease: Int, errors: Int, suspect: Bool) {
        self.runID = runID
        self.created = created
        self.checks = checks
        self.leaked = leaked
        self.lateRelease = lateRelease
        self.errors = errors
        self.suspect = suspect
    }
}

extension UploadReceipt {
    /// The receipt's JSON, byte for byte as the server's `JSONEncoder` (`.sortedKeys`,
    /// `.withoutEscapingSlashes`) encodes it, written straight out: through the encoder, this
    /// small answer cost 3% of a 10-check upload's CPU. `UploadReceiptJSONTests` holds the two to the same bytes.
    public func json() -> Data {
        var json = JSONBytes(capacity: 128)
        json.object { json in
            json.member("checks", checks)
            json.member("created", created)
            json.member("errors", errors)
            json.member("lateRelease", lateRelease)
            json.member("leaked", leaked)
            json.member("runID", runID)
            json.member("suspect", suspect)
        }
        return json.data
    }
}

/// The body of every error answer: `{"error":{"code":"…","message":"…"}}`.
public struct APIErrorBody: Codable, Sendable, Hashable {
    public struct Detail: Codable, Sendable, Hashable {
        public var code: String
        public var message: String
    }

    public var error: Detail
}
