import CLeakCheckSupport

/// What can be told about a running `Task` from the runtime's private layout (ABI/Task.h, 64-bit):
/// the job header (64 bytes, its flags at +32), the task's own fields (208 bytes in Swift 6.3,
/// 192 in earlier runtimes), then its fragments, the future fragment last: its wait queue
/// (status in the low two bits: 0 executing, 1 success, 2 error), then its result type.
///
/// The layout is trusted only when the word after the wait queue is the task's result type,
/// so a runtime that lays tasks out differently reads as unknown.
enum TaskMemory {
    enum State: Equatable {
        /// Still running or suspended; `closureContext` is the context of the closure it runs
        /// (which it keeps until it ends), when it was found.
        case running(closureContext: UInt?)
        case finished
        case unknown
    }

    static func state(of task: UInt, resultType: Any.Type) -> State {
        guard ProcessMemory.isSupported, MemoryLayout<UInt>.size == 8,
              let flagsWord = ProcessMemory.word(at: task + 32) else { return .unknown }
        let flags = UInt32(truncatingIfNeeded: flagsWord)
        let isChild = flags & (1 << 24) != 0, isFuture = flags & (1 << 25) != 0, inGroup = flags & (1 << 26) != 0
        guard isFuture else { return .unknown }
        let expected = UInt(bitPattern: unsafeBitCast(resultType, to: Int.self))
        for header in [208, 192] as [UInt] {
            let fragment = task + header + (isChild ? 16 : 0) + (inGroup ? 8 : 0)
            guard let queue = ProcessMemory.word(at: fragment), let type = ProcessMemory.word(at: fragment + 8),
                  type == expected || (isEmptyTuple(resultType) && isEmptyTupleMetadata(type))
            else { continue }
            guard queue & 3 == 0 else { return .finished }
            let result = TypeMetadata.layout(of: resultType)
            return .running(closureContext: closureContext(after: fragment + 24 + UInt(result.size)))
        }
        return .unknown
    }

    /// The closure context in the context prefix that follows the future fragment's result:
    /// (indirect result, async entry point, closure context, error result). Found as the word
    /// after a word that points into an image (the entry point; the unused result storage before it may hold anything), and kept only if it is
    /// a closure context or a Swift object (a closure capturing one object has it as context).
    private static func closureContext(after start: UInt) -> UInt? {
        var position = (start + 7) & ~7
        var previousInImage = false
        for _ in 0..<8 {
            guard let word = ProcessMemory.word(at: position) else { return nil }
            if previousInImage, LiveObject.isClosureContext(at: word) || LiveObject.validated(at: word) != nil {
                return word
            }
            previousInImage = word >= 0x10000 && lc_in_image(UInt(word)) == 1
            position += 8
        }
        return nil
    }

    private static func isEmptyTuple(_ type: Any.Type) -> Bool {
        ObjectIdentifier(type) == ObjectIdentifier(Void.self)
    }

    /// Tuple metadata (kind 0x301) with no elements, read by copying.
    private static func isEmptyTupleMetadata(_ address: UInt) -> Bool {
        ProcessMemory.word(at: address) == 0x301 && ProcessMemory.word(at: address + 8) == 0
    }

    /// `Success` of a `Task<Success, Failure>` value's type, from its metadata's generic
    /// arguments (a struct's follow its kind and descriptor words).
    static func resultType(ofTaskType type: Any.Type) -> Any.Type {
        let metadata = TypeMetadata.metadataPointer(type)
        return unsafeBitCast(metadata.load(fromByteOffset: 16, as: UnsafeRawPointer.self), to: Any.Type.self)
    }
}
