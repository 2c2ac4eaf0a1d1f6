/// The real clock of the lifecycles: time since the first use.
enum ScreenClock {
    static func now() -> Duration {
        ContinuousClock.now - origin
    }

    private static let origin = ContinuousClock.now
}
