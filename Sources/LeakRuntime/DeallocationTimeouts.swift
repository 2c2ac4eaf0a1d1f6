/// How long a check waits for an object to go, and how long after that a late release is
/// still a warning rather than a leak.
///
/// Precedence: the call's argument, then the test's trait, then the suite's trait (or, under
/// XCTest, the test case's `DeallocationCheckConfiguring`), then the defaults (2 s and 3 s).
public struct DeallocationTimeouts: Sendable, Hashable {
    public var timeout: Duration?
    public var gracePeriod: Duration?

    public static let defaultTimeout: Duration = .seconds(2)
    public static let defaultGracePeriod: Duration = .seconds(3)

    public init(timeout: Duration? = nil, gracePeriod: Duration? = nil) {
        self.timeout = timeout
        self.gracePeriod = gracePeriod
    }

    /// The values in force for the current task: set by `.checksDeallocation(timeout:gracePeriod:)`.
    @TaskLocal public static var current = DeallocationTimeouts()

    /// `self`'s values where set, `fallback`'s otherwise.
    package func over(_ fallback: DeallocationTimeouts) -> DeallocationTimeouts {
        DeallocationTimeouts(timeout: timeout ?? fallback.timeout, gracePeriod: gracePeriod ?? fallback.gracePeriod)
    }

    package var resolvedTimeout: Duration { timeout ?? Self.defaultTimeout }
    package var resolvedGracePeriod: Duration { gracePeriod ?? Self.defaultGracePeriod }
}

/// Adopt in an `XCTestCase` subclass to set its checks' timeout and grace period, and how many
/// attempts confirm a leak.
///
/// ```swift
/// final class ProfileTests: XCTestCase, DeallocationCheckConfiguring {
///     var deallocationTimeouts: DeallocationTimeouts { .init(timeout: .milliseconds(300)) }
///     var deallocationAttempts: Int? { 5 }
/// }
/// ```
public protocol DeallocationCheckConfiguring {
    var deallocationTimeouts: DeallocationTimeouts { get }
    /// How many times a check whose object leaked runs in all; nil (the default) leaves it to
    /// `LEAKHISTORY_ATTEMPTS`, else 3.
    var deallocationAttempts: Int? { get }
}

extension DeallocationCheckConfiguring {
    public var deallocationAttempts: Int? { nil }
}
