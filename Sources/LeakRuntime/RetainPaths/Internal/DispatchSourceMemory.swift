import CLeakCheckSupport

/// The handlers a dispatch source keeps, whether it is an armed timer, and its queue's label, read
/// from libdispatch's own layout (swift-corelibs-libdispatch 6.x, 64-bit, no Objective-C): the
/// Swift `DispatchSource` wraps a `dispatch_source_s` (src/source_internal.h, its header from
/// src/queue_internal.h and src/object_internal.h: `do_targetq` at +24, `dq_label` at +72), whose
/// `ds_refs` (+88) are a `dispatch_source_refs_s` (src/event/event_internal.h: `du_type` at +0,
/// `du_state` at +16, the `du_is_timer` bit at +29) holding a continuation per handler
/// (`ds_handler[3]` at +40); a continuation (`DISPATCH_CONTINUATION_HEADER`, src/queue_internal.h)
/// keeps the handler's copied block in `dc_ctxt` (+40); a block (`Block_layout`,
/// src/BlocksRuntime/Block_private.h) that Swift made from a closure carries that closure after its
/// 32-byte header: function, then context.
///
/// Every hop is checked before the next read, and everything is read by copying: the refs must
/// point back at their source (`du_owner_wref`, the complement of the source's address), the
/// continuation must be a block continuation, the block a heap block whose descriptor says it holds
/// exactly one thick closure, and the context a closure context or a Swift object. A layout that
/// does not check out yields nothing, and the source is then read as words (a possible path).
enum DispatchSourceMemory {
    /// Where a handler is kept, and the words of its block's closure.
    struct Handler {
        /// `eventHandler`, `cancelHandler`, `registrationHandler`: the names `DispatchSourceProtocol`
        /// sets them by.
        let name: String
        /// The context of the Swift closure the handler was made from; 0 for a closure that
        /// captures nothing.
        let closureContext: UInt
    }

    private static let handlerNames = ["eventHandler", "cancelHandler", "registrationHandler"]

    // dispatch_source_s and dispatch_source_refs_s.
    private static let refsOffset: UInt = 88
    private static let ownerReferenceOffset: UInt = 8
    private static let handlersOffset: UInt = 40
    private static let stateOffset: UInt = 16  // du_state
    private static let stateArmed: UInt = 0x1  // DU_STATE_ARMED
    private static let bitsOffset: UInt = 29  // the byte of du_is_direct, du_is_timer, …
    private static let isTimerBit: UInt = 0x2  // du_is_timer
    // dispatch_object_s and dispatch_queue_s.
    private static let targetQueueOffset: UInt = 24  // do_targetq
    private static let labelOffset: UInt = 72  // dq_label
    private static let maxLabelBytes = 128
    // dispatch_continuation_s.
    private static let continuationContextOffset: UInt = 40
    private static let continuationIsBlock: UInt = 0x10  // DC_FLAG_BLOCK
    private static let continuationHasPrivateData: UInt = 0x20  // DC_FLAG_BLOCK_WITH_PRIVATE_DATA
    private static let continuationFlagsLimit: UInt = 0x1000  // at or above: not a continuation
    // Block_layout.
    private static let blockHasCopyDispose: UInt32 = 1 << 25
    private static let blockHeaderSize: UInt = 32
    private static let mallocBlockClass = UInt(bitPattern: lc_symbol_address("_NSConcreteMallocBlock"))

    /// The handlers of the source `source` wraps (a `DispatchSource` of the Dispatch module); nil when
    /// its layout is not the one described above. Call it while `source` is alive.
    static func handlers(of source: AnyObject) -> [Handler]? {
        guard ProcessMemory.isSupported, MemoryLayout<UInt>.size == 8, mallocBlockClass != 0,
              let offset = wrappedOffset(in: type(of: source)) else { return nil }
        let object = UInt(bitPattern: Unmanaged.passUnretained(source).toOpaque())
        guard let wrapped = ProcessMemory.word(at: object &+ offset), wrapped != 0,
              let refs = refs(ofSourceAt: wrapped)
        else { return nil }
        return handlers(inRefs: refs)
    }

    /// The `dispatch_source_refs_s` of the `dispatch_source_s` at `source`, when it points back at
    /// the source (`du_owner_wref` is the complement of its address); nil otherwise.
    static func refs(ofSourceAt source: UInt) -> UInt? {
        guard ProcessMemory.isSupported, MemoryLayout<UInt>.size == 8, source != 0,
              let refs = ProcessMemory.word(at: source &+ refsOffset), refs != 0,
              ProcessMemory.word(at: refs &+ ownerReferenceOffset) == ~source
        else { return nil }
        return refs
    }

    /// The `dispatch_source_s` that owns the refs at `refs`, when the source points back at them;
    /// nil otherwise (the inverse of `refs(ofSourceAt:)`, and checked the same way).
    static func source(owningRefs refs: UInt) -> UInt? {
        guard let reference = ProcessMemory.word(at: refs &+ ownerReferenceOffset), reference != 0, reference != UInt.max
        else { return nil }
        let source = ~reference
        return Self.refs(ofSourceAt: source) == refs ? source : nil
    }

    /// The source type of the refs at `refs` (`du_type`, +0): which `dispatch_source_type_s` made it.
    static func sourceType(ofRefs refs: UInt) -> UInt? {
        ProcessMemory.word(at: refs)
    }

    /// Whether the refs at `refs` are a timer's (`du_is_timer`) that libdispatch has armed
    /// (`DU_STATE_ARMED` in `du_state`).
    static func isArmedTimer(refs: UInt) -> Bool {
        guard let state = ProcessMemory.word(at: refs &+ stateOffset), let bits = ProcessMemory.word(at: refs &+ bitsOffset)
        else { return false }
        return state & stateArmed != 0 && bits & isTimerBit != 0
    }

    /// The label of the queue the source at `source` runs its handlers on (`do_targetq`, then the
    /// queue's `dq_label`), when the queue is libdispatch's and the label a readable C string.
    static func targetQueueLabel(ofSourceAt source: UInt) -> String? {
        guard let queue = ProcessMemory.word(at: source &+ targetQueueOffset), queue != 0,
              let vtable = ProcessMemory.word(at: queue), lc_in_image(vtable) == 1,
              let label = ProcessMemory.word(at: queue &+ labelOffset), label != 0
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: maxLabelBytes)
        // The label may sit near the end of a mapping: read less until the copy succeeds.
        var length = maxLabelBytes
        while length >= 8, !bytes.withUnsafeMutableBytes({ ProcessMemory.copy(from: label, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<length])) }) {
            length /= 2
        }
        guard length >= 8, let end = bytes[..<length].firstIndex(of: 0), end > 0,
              let text = String(validating: bytes[..<end], as: UTF8.self),
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return text
    }

    /// The handlers kept in the refs at `refs` (checked by `refs(ofSourceAt:)`); nil when one of
    /// them does not check out.
    static func handlers(inRefs refs: UInt) -> [Handler]? {
        guard mallocBlockClass != 0 else { return nil }
        var handlers: [Handler] = []
        for (index, name) in handlerNames.enumerated() {
            guard let continuation = ProcessMemory.word(at: refs &+ handlersOffset &+ UInt(index) * 8) else { return nil }
            guard continuation != 0 else { continue }
            guard let context = closureContext(ofContinuation: continuation) else { return nil }
            handlers.append(Handler(name: name, closureContext: context))
        }
        return handlers
    }

    /// The offset of `__wrapped` (the `dispatch_source_t`) in a `DispatchSource`, from its field metadata.
    private static func wrappedOffset(in type: AnyObject.Type) -> UInt? {
        var level: AnyClass? = type
        while let current = level {
            if _typeName(current, qualified: true) == "Dispatch.DispatchSource" { break }
            level = _getSuperclass(current)
        }
        guard let source = level else { return nil }
        return FieldLayout.offset(ofField: "__wrapped", in: source).map(UInt.init)
    }

    private static func closureContext(ofContinuation continuation: UInt) -> UInt? {
        guard let flags = ProcessMemory.word(at: continuation), flags < continuationFlagsLimit,
              flags & continuationIsBlock != 0, flags & continuationHasPrivateData == 0,
              let block = ProcessMemory.word(at: continuation &+ continuationContextOffset), block != 0
        else { return nil }
        var header = [UInt](repeating: 0, count: 6)
        guard header.withUnsafeMutableBytes({ ProcessMemory.copy(from: block, into: $0) }),
              header[0] == mallocBlockClass,
              UInt32(truncatingIfNeeded: header[1]) & blockHasCopyDispose != 0,
              lc_in_image(header[2]) == 1, lc_in_image(header[3]) == 1,
              // Block_descriptor_1: reserved, then the block's size: the header and one thick closure.
              ProcessMemory.word(at: header[3] &+ 8) == blockHeaderSize + 16,
              lc_in_image(header[4]) == 1
        else { return nil }
        let context = header[5]
        guard context == 0 || LiveObject.isClosureContext(at: context) || LiveObject.validated(at: context) != nil
        else { return nil }
        return context
    }
}
