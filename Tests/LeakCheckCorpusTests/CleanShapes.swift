import Foundation
import LeakCheck
import LeakReport
import Testing

// Shapes that must pass: the closure and task forms of the leaks above, written correctly.
// A live object of each shape is also searched: no path, and no closure named as a suspect.

final class WeakCapture {
    var onDone: (() -> Void)?
    var count = 0
    init() { onDone = { [weak self] in self?.count += 1 } }
}

final class UnownedCapture {
    var onDone: (() -> Void)?
    var count = 0
    init() { onDone = { [unowned self] in self.count += 1 } }
}

final class UnownedUnsafeCapture {
    var onDone: (() -> Void)?
    var count = 0
    init() { onDone = { [unowned(unsafe) self] in self.count += 1 } }
}

/// Several captures, all weak or plain data.
final class WeakAmongValues {
    var render: (() -> String)?
    var title = "t"
    init() {
        let prefix = "p"
        render = { [weak self] in prefix + (self?.title ?? "") }
    }
}

final class StoppedPoller: @unchecked Sendable {
    var task: Task<Void, Never>?
    var ticks = 0
    func start() {
        task = Task {
            while !Task.isCancelled {
                self.ticks += 1
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
    }
}

/// A tree whose children point back weakly and whose closures capture weakly.
final class CleanNode {
    weak var parent: CleanNode?
    var children: [CleanNode] = []
    var onSelect: (() -> Void)?
    var selected = false
    init() { onSelect = { [weak self] in self?.selected = true } }
}

func cleanGraph(count: Int) -> CleanNode {
    let root = CleanNode()
    var level = [root]
    var made = 1
    while made < count {
        var next: [CleanNode] = []
        for parent in level where made < count {
            for _ in 0..<4 where made < count {
                let child = CleanNode()
                child.parent = parent
                parent.children.append(child)
                next.append(child)
                made += 1
            }
        }
        level = next
    }
    return root
}

@Suite("Clean shapes")
struct CleanShapeTests {
    @Test func weakUnownedAndUnsafeCapturesAreReleased() async {
        await expectDeallocation { WeakCapture() }
        await expectDeallocation { UnownedCapture() }
        await expectDeallocation { UnownedUnsafeCapture() }
        await expectDeallocation { WeakAmongValues() }
    }

    @Test func closuresWhoseCapturesAreAllWeakAreNoSuspects() {
        let objects: [AnyObject] = [WeakCapture(), UnownedCapture(), UnownedUnsafeCapture(), WeakAmongValues()]
        for object in objects {
            let report = findRetainPath(to: object, limits: RetainPathLimits(searchesGlobals: false))
            #expect(report.steps == nil, "\(type(of: object))")
            #expect(report.suspects.isEmpty, "\(type(of: object)): \(report.suspects)")
        }
    }

    @Test func stoppedTaskIsReleased() async {
        await expectDeallocation { () async -> StoppedPoller in
            let poller = StoppedPoller()
            poller.start()
            poller.task?.cancel()
            await poller.task?.value
            return poller
        }
    }

    @Test func cleanGraphOfFiveThousandObjects() async {
        await expectDeallocation { cleanGraph(count: 5_000) }
    }
}
