/// What differs between the platforms the runtime builds for, in one place: the retain-path
/// search reads these facts instead of testing the platform itself, so every branch of the search
/// is ordinary code that compiles everywhere.
///
/// The facts live in `Platform+Linux.swift` and `Platform+Darwin.swift`. `make portable` compiles
/// the Darwin file on Linux (`-DLEAKHISTORY_PORTABLE_CHECK`), so that the code Apple platforms
/// build is compiled on every change here.
enum Platform {
    /// Whether pointers are 64 bits wide: the metadata offsets the search reads assume it (watchOS's
    /// arm64_32 devices have 32-bit pointers), so the search does not run otherwise.
    static let hasEightBytePointers = MemoryLayout<UnsafeRawPointer>.size == 8
}
