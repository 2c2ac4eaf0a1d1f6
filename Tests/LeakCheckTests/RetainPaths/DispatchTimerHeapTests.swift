import Dispatch
import Testing
@testable import LeakRuntime

/// libdispatch's armed timers, read from its own layout: found with their queue and handler while
/// armed, gone once cancelled, and nothing read from memory that is not what the layout says.
@Suite("Armed dispatch timers")
struct DispatchTimerHeapTests {
    final class Counter: @unchecked Sendable {
        var count = 0
    }

    /// The armed timers whose event handler's context is `context`, searched for until libdispatch
    /// has armed (or, `armed` false, disarmed) the timer, for at most 100 tries.
    private func timers(holding context: UInt, armed: Bool = true) async -> [DispatchTimerHeap.ArmedTimer] {
        var found: [DispatchTimerHeap.ArmedTimer] = []
        for _ in 0..<100 {
            found = DispatchTimerHeap.armedTimers().filter { $0.handlers.contains { $0.closureContext == context } }
            if found.isEmpty != armed { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return found
    }

    @Test func anArmedTimerIsFoundWithItsQueueAndHandlerUntilItIsCancelled() async {
        let counter = Counter()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "com.example.poll"))
        timer.schedule(deadline: .now() + 3600, repeating: 3600)
        // One captured object: the handler's closure context is the object itself.
        timer.setEventHandler { counter.count += 1 }
        timer.resume()
        let address = UInt(bitPattern: Unmanaged.passUnretained(counter).toOpaque())
        let found = await timers(holding: address)
        #expect(found.map(\.name) == [#"DispatchSource timer (armed, on queue "com.example.poll")"#])
        #expect(found.first?.handlers.map(\.name) == ["eventHandler"])
        timer.cancel()
        #expect(await timers(holding: address, armed: false).isEmpty)
    }

    /// A wrong guess reads nothing: addresses that are not a source, refs or queue give nil, never
    /// a fault (every read is a copy) and never a timer.
    @Test func memoryThatIsNotLibdispatchsGivesNothing() {
        let counter = Counter()
        let object = UInt(bitPattern: Unmanaged.passUnretained(counter).toOpaque())
        var words = [UInt](repeating: 0, count: 32)
        words[11] = object  // where a source keeps its refs
        words.withUnsafeBufferPointer { buffer in
            let fake = UInt(bitPattern: buffer.baseAddress)
            for address in [0, 8, 0x1000, UInt.max - 7, object, fake] {
                #expect(DispatchSourceMemory.refs(ofSourceAt: address) == nil)
                #expect(DispatchSourceMemory.source(owningRefs: address) == nil)
                #expect(!DispatchSourceMemory.isArmedTimer(refs: address))
                #expect(DispatchSourceMemory.handlers(inRefs: address)?.isEmpty ?? true)
            }
        }
        withExtendedLifetime(counter) {}
    }
}
