import Foundation

/// The dispatch timers libdispatch has armed: the roots that keep a resumed `DispatchSource` timer
/// (and what its handlers capture) alive after the program dropped every reference to it, as
/// RxSwift's `DispatchQueueConfiguration.schedulePeriodic` does.
///
/// Read from libdispatch's own layout (swift-corelibs-libdispatch 6.x, 64-bit, Linux): the
/// manager keeps every armed timer in `_dispatch_timers_heap` (src/event/event_internal.h, a local
/// symbol found in libdispatch's `.symtab`), one `dispatch_timer_heap_s` per clock: `dth_count`
/// (two entries a timer, one in each of its two heaps), `dth_segments`, `dth_min[2]` (entries 0
/// and 1), then `dth_heap`, the segments holding the other entries (src/event/event.c,
/// `_dispatch_timer_heap_get_slot`). Each entry is a timer's `dispatch_source_refs_s`, which
/// `DispatchSourceMemory` checks against its source (each points at the other) before reading a
/// handler. Everything is read by copying; a heap whose header does not check out gives no timer.
enum DispatchTimerHeap {
    struct ArmedTimer {
        /// As a path's first step names it: `DispatchSource timer (armed, on queue "interval")`,
        /// or for the timer `asyncAfter` arms, `asyncAfter (pending, on queue "main")`.
        let name: String
        /// Its handlers whose blocks were read; an `asyncAfter`'s one is named `block`.
        let handlers: [DispatchSourceMemory.Handler]
        /// True for the timer behind `DispatchQueue.asyncAfter` (`dispatch_after`), which holds
        /// its block until the deadline, then releases it.
        let isAsyncAfter: Bool
    }

    private static let symbol = "_dispatch_timers_heap"
    /// The source type `dispatch_after` creates its timer with (src/source.c, `_dispatch_after`).
    private static let afterTypeSymbol = "_dispatch_source_type_after"
    // dispatch_timer_heap_s: dth_count (u32), dth_segments (u8), dth_min[2] at +8, dth_heap at +24.
    private static let heapSize = 32
    private static let minimumOffset = 8
    private static let segmentsOffset = 24
    private static let entriesInHeader: UInt32 = 2  // DTH_ID_COUNT
    private static let firstSegmentCapacity: UInt32 = 8  // DISPATCH_HEAP_INIT_SEGMENT_CAPACITY
    /// Bounds on what is believed: more segments than memory could hold, or more entries than a
    /// search should read, mean the layout is not the one above (or the heap is not ours to walk).
    private static let maxSegments: UInt8 = 24
    private static let maxEntries: UInt32 = 4096

    /// Where the heaps are, how many, and the address of the `dispatch_after` source type (0 if
    /// not found): found once (libdispatch is never unloaded); nil when libdispatch or its heaps'
    /// symbol is not there, or the symbol's size is not whole heaps.
    private static let heaps: (address: UInt, count: Int, afterType: UInt)? = {
        guard ProcessMemory.isSupported, MemoryLayout<UInt>.size == 8 else { return nil }
        let segments = ProcessMemory.writableSegments().filter {
            ($0.path as NSString).lastPathComponent.hasPrefix("libdispatch.so")
        }
        guard let image = segments.first else { return nil }
        let objects = ELFSymbols(path: image.path, objectNames: [symbol, afterTypeSymbol]).objects
        guard let heap = objects[symbol], heap.size % heapSize == 0, (1...8).contains(heap.size / heapSize) else { return nil }
        let address = image.loadBias &+ heap.offset
        guard segments.contains(where: { address >= $0.start && address + UInt(heap.size) <= $0.start + UInt($0.size) })
        else { return nil }
        return (address, heap.size / heapSize, objects[afterTypeSymbol].map { image.loadBias &+ $0.offset } ?? 0)
    }()

    /// The armed timers of the process with at least one handler read; empty where the heaps
    /// cannot be found or read.
    static func armedTimers() -> [ArmedTimer] {
        guard let heaps else { return [] }
        var seen: Set<UInt> = []
        var timers: [ArmedTimer] = []
        for index in 0..<heaps.count {
            for refs in entries(ofHeapAt: heaps.address + UInt(index * heapSize)) where seen.insert(refs).inserted {
                guard let source = DispatchSourceMemory.source(owningRefs: refs), DispatchSourceMemory.isArmedTimer(refs: refs),
                      var handlers = DispatchSourceMemory.handlers(inRefs: refs), !handlers.isEmpty
                else { continue }
                let queue = DispatchSourceMemory.targetQueueLabel(ofSourceAt: source).map { ", on queue \"\($0)\"" } ?? ""
                let isAsyncAfter = heaps.afterType != 0 && DispatchSourceMemory.sourceType(ofRefs: refs) == heaps.afterType
                if isAsyncAfter {
                    handlers = handlers.map { DispatchSourceMemory.Handler(name: "block", closureContext: $0.closureContext) }
                }
                let name = isAsyncAfter ? "asyncAfter (pending\(queue))" : "DispatchSource timer (armed\(queue))"
                timers.append(ArmedTimer(name: name, handlers: handlers, isAsyncAfter: isAsyncAfter))
            }
        }
        return timers
    }

    /// The entries of one heap, in slot order (a timer's refs twice); empty when its header does
    /// not check out.
    private static func entries(ofHeapAt address: UInt) -> [UInt] {
        var header = [UInt8](repeating: 0, count: heapSize)
        guard header.withUnsafeMutableBytes({ ProcessMemory.copy(from: address, into: $0) }) else { return [] }
        let count = header.withUnsafeBytes { $0.load(as: UInt32.self) }
        let segments = header[4]
        guard count % entriesInHeader == 0, count <= maxEntries, segments <= maxSegments, count <= capacity(segments: segments)
        else { return [] }
        var entries: [UInt] = []
        for slot in 0..<count {
            guard let at = slotAddress(slot, heap: address, segments: segments), let refs = ProcessMemory.word(at: at), refs != 0
            else { return [] }
            entries.append(refs)
        }
        return entries
    }

    /// `_dispatch_timer_heap_capacity`: the entries `segments` segments and the header hold.
    private static func capacity(segments: UInt8) -> UInt32 {
        guard segments > 0 else { return entriesInHeader }
        let last = UInt32(segments) - 1
        return entriesInHeader + (firstSegmentCapacity << last) - last
    }

    /// `_dispatch_timer_heap_get_slot`: the first two entries are in the header; the others in
    /// segments of 8, 8, 16, 32… entries; the newest segment is `dth_heap`, whose last words
    /// point at the older ones.
    private static func slotAddress(_ slot: UInt32, heap: UInt, segments: UInt8) -> UInt? {
        if slot < entriesInHeader { return heap + UInt(minimumOffset) + UInt(slot) * 8 }
        var index = slot - entriesInHeader
        let segment = UInt32((firstSegmentCapacity - 1).leadingZeroBitCount - (index | (firstSegmentCapacity - 1)).leadingZeroBitCount)
        guard segment < UInt32(segments), let newest = ProcessMemory.word(at: heap &+ UInt(segmentsOffset)), newest != 0 else { return nil }
        var base = newest
        if segment + 1 != UInt32(segments) {
            let newestCapacity = firstSegmentCapacity << (UInt32(segments) - 2)
            guard let older = ProcessMemory.word(at: newest &+ UInt(newestCapacity - segment - 1) * 8), older != 0 else { return nil }
            base = older
        }
        if segment > 0 { index -= firstSegmentCapacity << (segment - 1) }
        return base &+ UInt(index) * 8
    }
}
