#if canImport(Testing)
import Testing
#endif

/// Everything a check needs to know besides the objects: where it was written, which scenario
/// it belongs to, how long it waits, and how many attempts confirm a leak.
struct CheckContext: Sendable {
    var location: CallerLocation
    var scenario: String
    var lifecycle: String
    var timeouts: DeallocationTimeouts
    /// How many times the check runs in all when its object leaks (`ConfirmationAttempts`);
    /// 1 for a check that cannot be repeated (an object the test made and handed over).
    var attempts: Int
    /// Where someone else may hold the objects (a container, a cache): searched for retain paths.
    var rootsDescription: String?

    init(location: CallerLocation, scenario: String? = nil, lifecycle: String = "none", timeouts: DeallocationTimeouts,
         attempts: Int = 1) {
        self.location = location
        self.scenario = scenario ?? Self.currentScenario(at: location)
        self.lifecycle = lifecycle
        self.timeouts = timeouts
        self.attempts = attempts
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
