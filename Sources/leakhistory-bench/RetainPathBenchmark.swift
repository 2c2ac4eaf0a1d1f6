import Foundation
import LeakCheck

/// `leakhistory-bench retain`: a retain-path search over a 100,000-object graph beside a plain
/// `Mirror` walk of the same graph, and a `LeakWatcher` check over 10,000 watched objects beside
/// a bare loop over as many weak references.
enum RetainPathBenchmark {
    final class Node {
        var left: Node?
        var right: Node?
        var extras: [Node] = []
        var name = "node"
        var count = 0
    }

    static func run(quick: Bool) async -> BenchmarkTable {
        let objects = quick ? 10_000 : 100_000
        let watched = quick ? 1_000 : 10_000
        let rounds = quick ? 3 : 5

        // A binary tree whose last node holds the root: the search sees every object first.
        var nodes = [Node()]
        var parent = 0
        while nodes.count < objects {
            let left = Node(), right = Node()
            nodes[parent].left = left
            nodes[parent].right = right
            nodes.append(left)
            nodes.append(right)
            parent += 1
        }
        let root = nodes[0]
        nodes[nodes.count - 1].extras = [root]
        let limits = RetainPathLimits(maxDepth: 64, maxVisited: objects * 2)

        var found = 0
        let search = await Measurement.run(rounds: rounds, operations: 1) {
            if findRetainPath(to: root, limits: limits).steps != nil { found += 1 }
        }
        precondition(found == rounds + 1, "the search must find the cycle through the last node")

        var walked = 0
        let mirror = await Measurement.run(rounds: rounds, operations: 1) {
            walked = plainMirrorWalk(from: root)
        }
        precondition(walked == nodes.count, "the plain walk must see every node")

        let watcher = LeakWatcher(configuration: .init(strikes: Int.max, findsRetainPaths: false, report: nil))
        let kept = (0..<watched).map { _ in Node() }
        for object in kept { watcher.watch(object) }
        watcher.checkNow()
        let check = await Measurement.run(rounds: rounds * 4, operations: 1) {
            watcher.checkNow()
        }
        precondition(watcher.watchedCount == watched, "every object must stay watched")

        let references = kept.map { WeakNode(object: $0) }
        var alive = 0
        let bare = await Measurement.run(rounds: rounds * 4, operations: 1) {
            alive = references.reduce(0) { $0 + ($1.object == nil ? 0 : 1) }
        }
        precondition(alive == watched)
        withExtendedLifetime(kept) {}
        nodes[nodes.count - 1].extras = []  // let the graph go

        var table = BenchmarkTable(title: "retain — median of \(rounds) rounds (watcher: \(rounds * 4))")
        table.rows.append(.init(
            figure: "retain-path search, \(objects) objects", value: formatNanoseconds(search.median),
            baseline: "\(formatNanoseconds(mirror.median)) plain Mirror walk",
            ratio: "\(round2(search.median / mirror.median))×", target: "< 250 ms",
            met: quick ? nil : search.median < 250_000_000))
        table.rows.append(.init(
            figure: "watcher check, \(watched) watched", value: formatNanoseconds(check.median),
            baseline: "\(formatNanoseconds(bare.median)) bare weak-reference loop",
            ratio: "\(round1(check.median / bare.median))×", target: "< 5 ms",
            met: quick ? nil : check.median < 5_000_000))
        return table
    }

    private struct WeakNode {
        weak var object: Node?
    }

    /// Breadth first over every `Node` reachable through the mirrors' children, arrays included.
    private static func plainMirrorWalk(from root: Node) -> Int {
        var queue: [Node] = [root]
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(root)]
        var next = 0
        func visit(_ value: Any) {
            if let node = value as? Node {
                if seen.insert(ObjectIdentifier(node)).inserted { queue.append(node) }
                return
            }
            for child in Mirror(reflecting: value).children { visit(child.value) }
        }
        while next < queue.count {
            let node = queue[next]
            next += 1
            for child in Mirror(reflecting: node).children { visit(child.value) }
        }
        return queue.count
    }
}
