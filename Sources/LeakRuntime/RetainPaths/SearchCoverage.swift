import LeakReport

/// What the retain-path search can look at where it runs, and what a leak's message must say it
/// left out: "no path found" must never read as "nothing holds it" where the search did not look.
///
/// - Everywhere: the object's own references (cycles) and the roots the caller passed.
/// - Where this process's memory can be read (Linux with glibc): global and static variables,
///   and the memory scan from them. Not on Apple platforms, where the most common holder of a
///   leaked view controller, a `static let shared`, is therefore not found.
/// - Where pointers are 32 bits (watchOS's arm64_32): nothing; the metadata layouts it reads are
///   the 64-bit ones.
struct SearchCoverage: Equatable {
    var pointerBytes: Int
    var readsProcessMemory: Bool
    var platformName: String

    static let current = SearchCoverage(
        pointerBytes: MemoryLayout<UnsafeRawPointer>.size, readsProcessMemory: Platform.readsProcessMemory,
        platformName: Platform.name)

    /// Whether the search can run at all.
    var searches: Bool { pointerBytes == 8 }

    /// The report of a search that did not run.
    func unsearchedReport(for object: AnyObject) -> RetainPathReport {
        let type = String(reflecting: Swift.type(of: object))
        let readable = "the retain-path search did not run: it reads 64-bit runtime layouts, and pointers here are "
            + "\(pointerBytes * 8)-bit. Look for what holds it by hand: a `static let shared` or other global, "
            + "a closure, a delegate, a timer"
        return RetainPathReport(
            steps: nil, origin: .none, suspects: [], limitReached: nil, readable: readable,
            fingerprint: LeakFingerprint.unexplained(type: type).value)
    }

    /// `report` with what was not searched said after its words, when it found no path and the
    /// globals search (asked for in `limits`) could not run.
    func noting(_ report: RetainPathReport, limits: RetainPathLimits) -> RetainPathReport {
        guard report.origin == .none, limits.searchesGlobals, !readsProcessMemory else { return report }
        var noted = report
        noted.readable += "; global and static variables were not searched (no memory scan on \(platformName)): "
            + "if nothing else holds it, look for a `static let shared` or another global that keeps it, "
            + "directly or through an object it holds"
        return noted
    }
}
