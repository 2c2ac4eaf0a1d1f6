/// A small deterministic generator (SplitMix64): the same seed gives the same sequence in every
/// process, so the bench seeds the same histories every run and a test's failing input can be
/// found again. For the package's own benchmarks and tests; not a source of secrets.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `0..<bound` (with the modulo's slight bias, which no caller minds).
    package mutating func next(below bound: UInt64) -> UInt64 { next() % bound }

    /// Uniform in [0, 1).
    package mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    package mutating func chance(_ probability: Double) -> Bool { unit() < probability }
}
