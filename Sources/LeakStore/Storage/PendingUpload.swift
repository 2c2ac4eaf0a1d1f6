import Foundation

/// A big run while its slices are being stored: a commit row and a run row of its own that no
/// reader reaches, until one short transaction publishes them (`LeakStore.ingest`).
///
/// The commit's `sha` and the run's `run_key` are the same placeholder, `pending:` and 32 hex
/// digits: 40 characters like a sha, never a commit id (those are 40 hex digits), so no read by
/// sha or along first parents reaches it, and its branch is unset until it is published, so no
/// branch reaches it either. The run's `content_hash` is `pending` (a real one is 64 hex digits):
/// the one mark that the readers which list a project's runs without going through a commit
/// (`isPublished`) leave out.
struct PendingUpload: Sendable, Hashable {
    /// The content hash a pending run carries until it is published.
    static let contentHash = "pending"

    /// The SQL condition that run `alias` (`runs r` → `"r"`) is published.
    static func isPublished(_ alias: String) -> String { "\(alias).content_hash <> '\(contentHash)'" }

    /// A placeholder for a commit sha and a run key: `pending:` and 32 random hex digits.
    static func newPlaceholder() -> String {
        placeholderPrefix + UUID().uuidString.lowercased().filter { $0 != "-" }
    }

    static let placeholderPrefix = "pending:"

    /// The SQL condition that commit `alias` (`commits c` → `"c"`) is a pending upload's placeholder.
    static func isPlaceholder(_ alias: String) -> String { "\(alias).sha LIKE '\(placeholderPrefix)%'" }

    let runID: Int64
    let commitID: Int64
    let placeholder: String
    let receivedAt: String
}
