@testable import LeakServer
import Testing

@Suite("Dashboard: trend chart scaling")
struct TrendChartTests {
    let frame = TrendChart.Frame(width: 120, height: 60, left: 10, right: 10, top: 5, bottom: 5)

    @Test func onePointSitsInTheMiddleAtTheTop() {
        let chart = TrendChart(values: [3], frame: frame)
        #expect(chart.points == [.init(sample: 0, value: 3, x: 60, y: 5)])
        #expect(chart.yMax == 3)
        #expect(chart.labelled == [0])
        #expect(chart.segments.count == 1)
    }

    @Test func aFlatSeriesOfZerosLiesOnTheFloor() {
        let chart = TrendChart(values: [0, 0, 0], frame: frame)
        #expect(chart.yMax == 1)
        #expect(chart.points.map(\.y) == [55, 55, 55])
        #expect(chart.points.map(\.x) == [10, 60, 110])
    }

    @Test func aFlatSeriesAboveZeroLiesAlongTheTop() {
        let chart = TrendChart(values: [2, 2], frame: frame)
        #expect(chart.yMax == 2)
        #expect(chart.points.map(\.y) == [5, 5])
    }

    @Test func valuesScaleBetweenTheFloorAndTheLargest() {
        let chart = TrendChart(values: [0, 2, 4], frame: frame)
        #expect(chart.points.map(\.y) == [55, 30, 5])
    }

    @Test func aMissingCommitIsAGapThatBreaksTheLine() {
        let chart = TrendChart(values: [1, nil, 2, 3, nil], frame: frame)
        #expect(chart.points.map(\.sample) == [0, 2, 3])
        #expect(chart.segments.map { $0.map(\.sample) } == [[0], [2, 3]])
        // The gap keeps its place on the x axis: commits are steps.
        #expect(chart.points.map(\.x) == [10, 60, 85])
    }

    @Test func onlyGapsDrawNothing() {
        let chart = TrendChart(values: [nil, nil], frame: frame)
        #expect(chart.points.isEmpty && chart.segments.isEmpty && chart.labelled.isEmpty)
        #expect(TrendChart(values: [], frame: frame).points.isEmpty)
    }

    @Test func aThousandPointsAreBucketedKeepingEverySpike() {
        var values: [Int?] = Array(repeating: 0, count: 1_000)
        values[123] = 9
        values[999] = 1
        let chart = TrendChart(values: values, frame: frame, maxPoints: 200, maxLabels: 6)
        #expect(chart.bucketSize == 5)
        #expect(chart.points.count == 200)
        #expect(chart.points.contains { $0.sample == 123 && $0.value == 9 && $0.y == 5 })
        #expect(chart.points.last?.sample == 999)
        #expect(chart.points.first?.x == 10 && chart.points.last?.x == 110)
        #expect(chart.labelled.count == 6)
        #expect(chart.labelled.first == 0 && chart.labelled.last == 199)
        // Left to right, never two points in the same place.
        #expect(zip(chart.points, chart.points.dropFirst()).allSatisfy { $0.x < $1.x })
    }

    @Test func aBucketOfGapsIsAGapAndEqualValuesPickTheNewest() {
        let chart = TrendChart(values: [nil, nil, 1, 1, 0, nil], frame: frame, maxPoints: 3)
        #expect(chart.bucketSize == 2)
        #expect(chart.points.map(\.sample) == [3, 4])
        #expect(chart.segments.count == 1)
    }

    @Test func labelsAreSpreadEvenlyWithTheEndsIncluded() {
        #expect(TrendChart.spread(count: 4, at: 6) == [0, 1, 2, 3])
        #expect(TrendChart.spread(count: 11, at: 3) == [0, 5, 10])
        #expect(TrendChart.spread(count: 5, at: 1) == [4])
        #expect(TrendChart.spread(count: 5, at: 0).isEmpty)
    }
}
