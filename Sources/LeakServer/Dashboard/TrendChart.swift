/// Where a trend's points go on a chart: pure arithmetic, no markup (`TrendChartSVG` draws it).
///
/// ```swift
/// let chart = TrendChart(values: [0, 1, nil, 3], frame: .init(width: 600, height: 200))
/// chart.points.map(\.sample) // [0, 1, 3]: indices into `values`; nil is a gap
/// ```
/// Rules:
/// - x: samples are evenly spaced in commit order (a commit is a step, whatever the time
///   between two); a single point sits in the middle.
/// - y: zero at the bottom, `yMax` at the top, where `yMax` is the largest value and at least 1,
///   so a flat series of zeros lies on the floor and one leak is visibly above it.
/// - gaps: a nil value (the type was not checked at that commit) draws no point and breaks the
///   line into `segments`.
/// - many samples: beyond `maxPoints` consecutive samples are grouped into buckets of equal
///   size and each bucket is drawn as its highest sample (the newest of equals), so a spike is
///   never averaged away; `bucketSize` says how many commits a point stands for.
/// - labels: at most `maxLabels` points get an x-axis label, evenly spread, first and last
///   always included.
struct TrendChart: Sendable, Equatable {
    /// The drawing area and the margin kept free around the plot for labels.
    struct Frame: Sendable, Equatable {
        var width: Double
        var height: Double
        var left: Double = 0
        var right: Double = 0
        var top: Double = 0
        var bottom: Double = 0

        var plotWidth: Double { max(width - left - right, 0) }
        var plotHeight: Double { max(height - top - bottom, 0) }
    }

    /// A drawn point.
    struct Point: Sendable, Equatable {
        /// Index of the sample it stands for in the input.
        var sample: Int
        var value: Int
        var x: Double
        var y: Double
    }

    let frame: Frame
    /// Drawn points, left to right.
    let points: [Point]
    /// Runs of points with no gap between them; each is one polyline.
    let segments: [[Point]]
    /// The value at the top of the plot.
    let yMax: Int
    /// Indices into `points` that carry an x-axis label.
    let labelled: [Int]
    /// How many samples each drawn position stands for (1 unless downsampled).
    let bucketSize: Int

    init(values: [Int?], frame: Frame, maxPoints: Int = 200, maxLabels: Int = 6) {
        self.frame = frame
        let bucketSize = values.count > maxPoints ? (values.count + maxPoints - 1) / max(maxPoints, 1) : 1
        self.bucketSize = bucketSize
        // One slot per bucket; a slot is the bucket's highest sample, nil when all are nil.
        let slots: [Int?] = stride(from: 0, to: values.count, by: bucketSize).map { start in
            let bucket = start..<min(start + bucketSize, values.count)
            return bucket.reduce(nil as Int?) { best, index in
                guard let value = values[index] else { return best }
                guard let best, let bestValue = values[best] else { return index }
                return value >= bestValue ? index : best
            }
        }
        let yMax = max(1, values.compactMap { $0 }.max() ?? 0)
        self.yMax = yMax
        var points: [Point] = []
        var segments: [[Point]] = []
        var current: [Point] = []
        for (slot, sample) in slots.enumerated() {
            guard let sample, let value = values[sample] else {
                if !current.isEmpty { segments.append(current) }
                current = []
                continue
            }
            let x = slots.count == 1
                ? frame.left + frame.plotWidth / 2
                : frame.left + frame.plotWidth * Double(slot) / Double(slots.count - 1)
            let y = frame.top + frame.plotHeight * (1 - Double(value) / Double(yMax))
            let point = Point(sample: sample, value: value, x: x, y: y)
            points.append(point)
            current.append(point)
        }
        if !current.isEmpty { segments.append(current) }
        self.points = points
        self.segments = segments
        self.labelled = Self.spread(count: points.count, at: maxLabels)
    }

    /// At most `limit` indices of `0..<count`, evenly spread, first and last included.
    static func spread(count: Int, at limit: Int) -> [Int] {
        guard count > 0, limit > 0 else { return [] }
        guard count > limit else { return Array(0..<count) }
        guard limit > 1 else { return [count - 1] }
        let step = Double(count - 1) / Double(limit - 1)
        return (0..<limit).map { Int((Double($0) * step).rounded()) }
    }
}
