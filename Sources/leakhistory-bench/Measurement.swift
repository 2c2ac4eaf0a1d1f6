/// Times a piece of work over repeated rounds, after a warm-up, and keeps the median: one slow
/// round (a page fault, the other core busy) does not move the figure.
struct Measurement {
    /// Nanoseconds per operation, one value per round.
    private(set) var rounds: [Double] = []

    var median: Double {
        let sorted = rounds.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    /// Runs `body` (which performs `operations` operations) once to warm up, then `rounds` times.
    static func run(rounds: Int, operations: Int, _ body: () async throws -> Void) async rethrows -> Measurement {
        var measurement = Measurement()
        let clock = ContinuousClock()
        try await body()
        for _ in 0..<rounds {
            let start = clock.now
            try await body()
            let elapsed = clock.now - start
            measurement.rounds.append(elapsed.nanoseconds / Double(operations))
        }
        return measurement
    }
}

extension Duration {
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }
}
