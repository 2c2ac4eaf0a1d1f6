import Foundation
import LeakCheck

/// `leakhistory-bench library`: the cost of a passing `expectDeallocation`, report line
/// included, beside a bare create-weak-release loop in the same run.
enum LibraryBenchmark {
    final class Probe {}

    static func run(quick: Bool) async -> BenchmarkTable {
        let checks = quick ? 1_000 : 10_000
        let rounds = quick ? 3 : 7

        // The bare loop: what any weak-reference check costs at the least.
        var released = 0
        let bare = await Measurement.run(rounds: rounds, operations: checks) {
            for _ in 0..<checks {
                weak var reference: Probe?
                do {
                    let object = Probe()
                    reference = object
                }
                if reference == nil { released += 1 }
            }
        }
        precondition(released == checks * (rounds + 1), "the bare loop must see every probe released")

        let check = await Measurement.run(rounds: rounds, operations: checks) {
            for _ in 0..<checks {
                await expectDeallocation { Probe() }
            }
        }

        var table = BenchmarkTable(title: "library — \(checks) passing checks a round, median of \(rounds) rounds, report: \(reportDescription)")
        table.rows.append(.init(
            figure: "passing check (report line included)", value: formatNanoseconds(check.median),
            baseline: "\(formatNanoseconds(bare.median)) bare create-weak-release",
            ratio: "\(round1(check.median / bare.median))×", target: "< 20 µs", met: check.median < 20_000))
        let total = check.median * 10_000
        table.rows.append(.init(
            figure: "10,000 checks", value: formatNanoseconds(total),
            baseline: formatNanoseconds(bare.median * 10_000),
            ratio: "\(round1(check.median / bare.median))×", target: "< 0.2 s", met: total < 200_000_000))
        return table
    }

    private static var reportDescription: String {
        ProcessInfo.processInfo.environment["LEAKHISTORY_REPORT"] ?? "none"
    }
}
