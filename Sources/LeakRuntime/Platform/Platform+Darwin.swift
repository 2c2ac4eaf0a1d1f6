#if canImport(Darwin) || LEAKHISTORY_PORTABLE_CHECK
extension Platform {
    /// The name leak messages use for this platform.
    static let name = "Apple platforms"

    /// Class metadata carries the Objective-C isa, cache and data words before the Swift ones.
    static let hasObjectiveCInterop = true

    /// No reader of this process's memory here (CLeakCheckSupport is Linux-only): the global and
    /// static search and the memory scan do not run, and leak messages say so.
    static let readsProcessMemory = false

    /// A `Mutex`'s handle is an `os_unfair_lock` here; the value's place is not read, since it
    /// cannot be checked where this is developed. Such a field is read as unknown words.
    static let mutexValueOffset: Int? = nil
}
#endif
