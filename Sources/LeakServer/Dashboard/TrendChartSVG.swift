import LeakReport
import LeakStore

/// Draws a `TrendChart` of a type's trend as inline SVG: the full chart of the type page, with
/// each point linked to its commit, and the small sparkline of the project page.
enum TrendChartSVG {
    /// The values a trend charts: leaking scenarios per commit, nil where the type was not
    /// checked at all (a gap, not a zero).
    static func values(_ points: [TrendPoint]) -> [Int?] {
        points.map { $0.checkedKeys == 0 ? nil : $0.leakedKeys }
    }

    /// The type page's chart: axes with 0 and the maximum, one line per run of consecutive
    /// points, a circle per point (`data-commit` holds its sha) linked to the commit page, and
    /// short shas under a few points.
    static func chart(_ points: [TrendPoint], type: String, branch: String, links: DashboardLinks) -> HTML {
        let frame = TrendChart.Frame(width: 720, height: 240, left: 36, right: 28, top: 14, bottom: 36)
        let chart = TrendChart(values: values(points), frame: frame)
        let bottom = frame.top + frame.plotHeight, right = frame.left + frame.plotWidth
        var parts: [HTML] = [
            "<line class=\"axis\" x1=\"\(frame.left)\" y1=\"\(bottom)\" x2=\"\(right)\" y2=\"\(bottom)\"/>",
            "<line class=\"grid\" x1=\"\(frame.left)\" y1=\"\(frame.top)\" x2=\"\(right)\" y2=\"\(frame.top)\"/>",
            "<text class=\"tick\" x=\"\(frame.left - 6)\" y=\"\(bottom + 4)\" text-anchor=\"end\">0</text>",
            "<text class=\"tick\" x=\"\(frame.left - 6)\" y=\"\(frame.top + 4)\" text-anchor=\"end\">\(chart.yMax)</text>",
        ]
        parts += chart.segments.map { segment in
            "<polyline class=\"line\" points=\"\(polyline(segment))\"/>"
        }
        parts += chart.points.map { point in
            let commit = points[point.sample]
            let title = "\(commit.commit.prefix(7)): \(point.value) leaking scenario\(point.value == 1 ? "" : "s") of "
                + "\(commit.checkedKeys) checked, \(commit.at)"
            return """
                <a href="\(links.commit(commit.commit))"><circle class="point\(point.value > 0 ? " leaking" : "")" \
                data-commit="\(commit.commit)" data-value="\(point.value)" cx="\(point.x)" cy="\(point.y)" r="4">\
                <title>\(title)</title></circle></a>
                """
        }
        parts += chart.labelled.map { index in
            let point = chart.points[index]
            let anchor = chart.points.count > 1 && index == 0 ? "start"
                : (chart.points.count > 1 && index == chart.points.count - 1 ? "end" : "middle")
            let sha = String(points[point.sample].commit.prefix(7))
            return "<text class=\"tick\" x=\"\(point.x)\" y=\"\(bottom + 18)\" text-anchor=\"\(HTML(trusted: anchor))\">\(sha)</text>"
        }
        let summary = chart.bucketSize > 1
            ? "; each point is the highest of \(chart.bucketSize) consecutive commits" : ""
        let label = "Leaking scenarios of \(type) per commit along \(branch), \(points.count) commits\(summary)"
        return """
            <svg class="chart" viewBox="0 0 \(Int(frame.width)) \(Int(frame.height))" role="img" aria-label="\(label)">\
            \(HTML.joined(parts))</svg>
            """
    }

    /// A 120×28 sparkline: the line and a dot on the newest point, no labels.
    static func sparkline(_ points: [TrendPoint], type: String) -> HTML {
        let frame = TrendChart.Frame(width: 120, height: 28, left: 3, right: 3, top: 3, bottom: 3)
        let chart = TrendChart(values: values(points), frame: frame, maxPoints: 60, maxLabels: 0)
        var parts: [HTML] = chart.segments.map { segment in
            "<polyline class=\"line\" points=\"\(polyline(segment))\"/>"
        }
        if let last = chart.points.last {
            parts.append("<circle class=\"point leaking\" cx=\"\(last.x)\" cy=\"\(last.y)\" r=\"2.5\"/>")
        }
        let label = "Trend of \(type) over \(points.count) commits, at most \(chart.yMax) leaking scenarios"
        return """
            <svg class="spark" viewBox="0 0 120 28" width="120" height="28" role="img" aria-label="\(label)" \
            data-points="\(chart.points.count)">\(HTML.joined(parts))</svg>
            """
    }

    private static func polyline(_ points: [TrendChart.Point]) -> HTML {
        // A lone point still gets a (zero-length) line so that a segment is never empty markup.
        HTML.joined(points.map { "\($0.x),\($0.y)" }, separator: " ")
    }
}
