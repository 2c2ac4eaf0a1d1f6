import Dispatch
import Foundation
import LeakCheck

/// How the UIKit and AppKit hosts wait: one turn of the main run loop, in which transitions,
/// animations and queued blocks progress. No fixed delay: it returns as soon as the run loop
/// has gone around.
enum MainRunLoop {
    @MainActor
    static func nextTurn() async {
        await withCheckedContinuation { (turned: CheckedContinuation<Void, Never>) in
            let once = ResumeOnce(turned)
            RunLoop.main.perform { once.resume() }
            // Where the main thread drains its queue without running a run loop (some
            // command-line test runners), the block above never runs: this keeps the step's
            // deadline alive, so a screen that cannot appear there fails in time, never hangs.
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(50)) { once.resume() }
        }
    }

    /// Resumes a continuation the first time only.
    private final class ResumeOnce: Sendable {
        private let continuation: Locked<CheckedContinuation<Void, Never>?>

        init(_ continuation: CheckedContinuation<Void, Never>) {
            self.continuation = Locked(continuation)
        }

        func resume() {
            continuation.withLock { pending in
                defer { pending = nil }
                return pending
            }?.resume()
        }
    }
}
