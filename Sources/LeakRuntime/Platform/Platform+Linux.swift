#if !canImport(Darwin) && !LEAKHISTORY_PORTABLE_CHECK
extension Platform {
    /// The name leak messages use for this platform.
    static let name = "Linux"

    /// Swift classes have no Objective-C interop: no isa, cache or data words in class metadata.
    static let hasObjectiveCInterop = false

    /// Whether the process's memory can be read without faulting and its images' writable
    /// segments listed (CLeakCheckSupport, through glibc): what the global and static search and
    /// the memory scan need.
    #if os(Linux) && canImport(Glibc)
    static let readsProcessMemory = true
    #else
    static let readsProcessMemory = false
    #endif

    /// Where a `Mutex`'s value lies in it (Synchronization's Mutex.swift: `handle`, an
    /// `Atomic<UInt32>` here, then `value`, a `_Cell<Value>` laid out like `Value`, at the next word).
    static let mutexValueOffset: Int? = MemoryLayout<UInt>.size
}
#endif
