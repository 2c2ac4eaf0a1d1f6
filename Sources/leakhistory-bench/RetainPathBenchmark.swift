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
        for megabytes in quick ? [2, 5] : [50, 200] {
            table.rows += await globalSearchRows(heapMegabytes: megabytes, rounds: rounds, quick: quick)
        }
        return table
    }

    // MARK: Search from the process's globals

    /// A heap object of about 600 bytes: a payload of plain words, and a reference.
    final class Blob {
        var payload: [UInt]
        var next: Blob?
        init(_ seed: UInt) { payload = (0..<64).map { $0 &* seed } }
    }

    final class Survivor {}
    final class Registry { var entries: [Survivor] = [] }

    /// What the searches below find the survivor from, and (second shape) the heap it walks first.
    nonisolated(unsafe) static var registry = Registry()
    nonisolated(unsafe) static var heapFromGlobal: [Blob] = []

    /// The search from globals for a survivor held by `registry`, beside a plain scan of every
    /// word of the same heap for the survivor's address (what one level of a reverse search of
    /// memory costs): first with the heap held locally (what a test usually has), then with the
    /// heap reachable from a global, which the search walks before it reaches the registry.
    private static func globalSearchRows(heapMegabytes: Int, rounds: Int, quick: Bool) async -> [BenchmarkTable.Row] {
        let count = heapMegabytes * 1_048_576 / 600
        var heap = (0..<count).map { Blob(UInt($0)) }
        for index in heap.indices.dropLast() { heap[index].next = heap[index + 1] }
        let survivor = Survivor()
        registry.entries = [survivor]
        let address = UInt(bitPattern: Unmanaged.passUnretained(survivor).toOpaque())
        let limits = RetainPathLimits(maxVisited: count + 1000, timeBudget: .seconds(30))

        var scanned = 0
        let plain = await Measurement.run(rounds: rounds, operations: 1) {
            var matches = 0
            for blob in heap {
                blob.payload.withUnsafeBufferPointer { words in
                    for word in words where word == address { matches += 1 }
                }
            }
            scanned = matches
        }
        precondition(scanned == 0, "the survivor's address is in no payload")

        var found = ""
        let local = await Measurement.run(rounds: rounds, operations: 1) {
            found = findRetainPath(to: survivor, limits: limits).readable
        }
        precondition(found == "RetainPathBenchmark.registry → Registry.entries[0] → Survivor", found)

        heapFromGlobal = heap
        let reachable = await Measurement.run(rounds: min(rounds, 3), operations: 1) {
            found = findRetainPath(to: survivor, limits: limits).readable
        }
        precondition(found.hasSuffix("Registry.entries[0] → Survivor"), found)
        heapFromGlobal = []
        for blob in heap { blob.next = nil }
        heap.removeAll()
        registry.entries = []

        let baseline = "\(formatNanoseconds(plain.median)) plain scan of \(heapMegabytes) MB"
        return [
            .init(figure: "search from globals, \(heapMegabytes) MB heap held locally", value: formatNanoseconds(local.median),
                  baseline: baseline, ratio: "\(round2(local.median / plain.median))×",
                  target: heapMegabytes == 50 ? "< 250 ms" : "",
                  met: quick || heapMegabytes != 50 ? nil : local.median < 250_000_000),
            .init(figure: "search from globals, \(heapMegabytes) MB heap (\(count) objects) from a global",
                  value: formatNanoseconds(reachable.median),
                  baseline: baseline, ratio: "\(round2(reachable.median / plain.median))×", target: "", met: nil),
        ]
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
