import Foundation

/// Keeps the evidence of every key `GateRule` judges while it records, so that
/// `leakhistory-bench gate` can write what a real pass gathered and score a changed rule on it
/// offline (`LEAKHISTORY_BENCH_GATE_RECORD`, `LEAKHISTORY_BENCH_GATE_REPLAY`). Off unless a
/// process calls `start()`; the server and the CLI never do.
package final class GateRecorder: @unchecked Sendable {
    package struct Judgement: Sendable {
        package var key: LeakKey
        package var evidence: KeyEvidence
    }

    /// The one recorder of the process.
    package static let shared = GateRecorder()

    private let lock = NSLock()
    /// nil while not recording.
    private var judgements: [Judgement]?

    package func start() { lock.withLock { judgements = [] } }

    /// The judgements since the last call, in the order they were made.
    package func take() -> [Judgement] {
        lock.withLock {
            defer { if judgements != nil { judgements = [] } }
            return judgements ?? []
        }
    }

    func record(_ key: LeakKey, _ evidence: KeyEvidence) {
        lock.withLock { judgements?.append(Judgement(key: key, evidence: evidence)) }
    }
}
