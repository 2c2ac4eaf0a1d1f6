/// The table every benchmark prints: each figure beside the baseline measured in the same run,
/// their ratio, and the target the issue set.
struct BenchmarkTable {
    struct Row {
        var figure: String
        var value: String
        var baseline: String
        var ratio: String
        var target: String
        var met: Bool?
    }

    var title: String
    var rows: [Row] = []

    func render() -> String {
        let header = Row(figure: "figure", value: "value", baseline: "baseline (same run)", ratio: "ratio", target: "target", met: nil)
        let all = [header] + rows
        func width(_ column: (Row) -> String) -> Int { all.map { column($0).count }.max() ?? 0 }
        let widths = [width(\.figure), width(\.value), width(\.baseline), width(\.ratio), width(\.target)]
        func line(_ row: Row) -> String {
            let cells = [row.figure, row.value, row.baseline, row.ratio, row.target]
            let padded = zip(cells, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }
            let verdict = row.met.map { $0 ? "met" : "MISSED" } ?? ""
            return "  " + padded.joined(separator: "  ") + "  " + verdict
        }
        var text = "\(title)\n" + line(header) + "\n"
        for row in rows { text += line(row) + "\n" }
        return text
    }
}

/// `12.3 µs`, `850 ns`, `1.25 ms`, `0.14 s`.
func formatNanoseconds(_ ns: Double) -> String {
    if ns < 1_000 { return "\(Int(ns.rounded())) ns" }
    if ns < 1_000_000 { return "\(round1(ns / 1_000)) µs" }
    if ns < 1_000_000_000 { return "\(round1(ns / 1_000_000)) ms" }
    return "\(round2(ns / 1_000_000_000)) s"
}

func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
func round2(_ value: Double) -> Double { (value * 100).rounded() / 100 }
