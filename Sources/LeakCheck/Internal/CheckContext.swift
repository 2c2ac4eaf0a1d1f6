#if canImport(Testing)
import Testing
#endif

/// Everything a check needs to know besides the objects: where it was written, which scenario
/// it belongs to, and how long it waits.
struct CheckContext: Sendable {
    var location: CallerLocation
    var scenario: String
    var lifecycle: String
    var timeouts: DeallocationTimeouts
    /// Where someone else may hold the objects (a container, a cache): searched for retain paths.
    var rootsDescription: String?

    init(location: CallerLocation, scenario: String? = nil, lifecycle: String = "none", timeouts: DeallocationTimeouts) {
        self.location = location
        self.scenario = scenario ?? Self.currentScenario(at: location)
        self.lifecycle = lifecycle
        self.timeouts = timeouts
    }

    /// The running Swift Testing test's id (`ProfileTests/profileScreen()`), else the calling
    /// file and function (`AppTests/ProfileTests/testLoads()`): stable across runs either way.
    static func currentScenario(at location: CallerLocation) -> String {
        #if canImport(Testing)
        if let test = Test.current {
            return test.id.nameComponents.joined(separator: "/")
        }
        #endif
        let file = location.fileID.hasSuffix(".swift") ? String(location.fileID.dropLast(6)) : location.fileID
        return location.function.isEmpty ? file : "\(file)/\(location.function)"
    }
}
