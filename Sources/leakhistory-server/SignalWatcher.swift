import Dispatch
import Foundation
import Synchronization

/// Turns SIGTERM and SIGINT into calls of `handler` with how many have arrived so far.
final class SignalWatcher {
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], handler: @escaping @Sendable (Int) -> Void) {
        let count = Atomic<Int>(0)
        let queue = DispatchQueue(label: "leakhistory.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                handler(count.add(1, ordering: .sequentiallyConsistent).newValue)
            }
            source.resume()
            return source
        }
    }
}
