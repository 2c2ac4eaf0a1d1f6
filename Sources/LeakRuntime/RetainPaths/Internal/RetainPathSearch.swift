import LeakReport

/// One breadth-first search over the object graph. Nodes keep their objects alive until the
/// search ends, so no `ObjectIdentifier` is reused while it runs.
struct RetainPathSearch {
    private struct Node {
        let object: AnyObject
        let parent: Int
        /// The steps from the parent: one, and the method reference it goes through, if any.
        let steps: [RetainPathStep]
        let depth: Int
        /// Every reference from the root to here was read with its type.
        var proven = true
    }

    private let target: AnyObject
    private let targetType: String
    private let limits: RetainPathLimits
    private var walk: ReferenceWalk
    private var nodes: [Node] = []
    private var seen: Set<ObjectIdentifier> = []
    private var depthReached = false
    private var visitsReached = false
    private var timeReached = false
    /// Whether the path found was read with types all the way.
    private var foundProven = true
    private var deadline: ContinuousClock.Instant?
    /// The holders a backward scan found on the way from the globals to the target, while the
    /// walk is restricted to them.
    private var holders: Set<UInt>?
    /// The bound the backward scan reached, if any.
    private var scanBound: String?
    /// How many of the walk's suspects were found before the search from the globals.
    private var ownSuspects: Int?
    /// While the armed timers are walked first, before memory is scanned: the most objects that
    /// walk may reach (nil otherwise).
    private var firstWalkLimit: Int?
    /// The names of the armed timers that are `asyncAfter`'s (for the hint).
    private var asyncAfterNames: Set<String> = []
    private static let maxFirstTimerWalk = 4096
    /// The backward scan's bounds: levels of memory scanned, and holders kept.
    private static let maxScanDepth = 8
    private static let maxScanHolders = 512
    /// While the cycle search runs: each suspect the walk names, with the path from the object to
    /// the holder it was found on. The first is the possible path reported when none is found.
    private var recordsSuspectPaths = false
    private var suspectPaths: [[RetainPathStep]] = []
    private static let maxSuspectPaths = 8

    /// False to search the globals forward only, as where memory cannot be scanned (the plain
    /// path the backward scan is tested against).
    private let scansBackwards: Bool

    /// - Parameters:
    ///   - readsFieldMetadata: False to search as on a platform whose field metadata cannot be
    ///     read, where every step is `unknown`.
    ///   - scansBackwards: False to search the globals forward only.
    init(target: AnyObject, limits: RetainPathLimits, readsFieldMetadata: Bool = true, scansBackwards: Bool = true) {
        self.scansBackwards = scansBackwards
        self.target = target
        self.targetType = String(reflecting: type(of: target))
        self.limits = limits
        let (budget, overflow) = limits.maxVisited.multipliedReportingOverflow(by: 16)
        self.walk = ReferenceWalk(valueBudget: overflow ? Int.max : budget, readsFieldMetadata: readsFieldMetadata)
        walk.know(target)
    }

    /// A cycle, else a path from the roots, else from the globals; a proven path first: a
    /// possible one is kept while the later searches look for a proven one.
    mutating func run(roots: [Any]) -> RetainPathReport {
        var possible: (steps: [RetainPathStep], origin: RetainPathReport.Origin)?
        if let cycle = searchCycle() {
            if foundProven { return report(steps: cycle, origin: .cycle) }
            possible = (cycle, .cycle)
        }
        if !roots.isEmpty, let path = searchRoots(roots) {
            if foundProven { return report(steps: path, origin: .root) }
            possible = possible ?? (path, .root)
        }
        if limits.searchesGlobals, !walk.budgetExhausted, !visitsReached {
            // Suspects are what the object reaches, not what the globals reach.
            ownSuspects = walk.suspects.count
            deadline = ContinuousClock.now + limits.timeBudget
            defer { deadline = nil }
            // libdispatch's armed timers are roots beside the globals: what their handlers capture
            // is held until they are cancelled, even when the program kept no reference to the
            // timer. What they hold is usually little: walked first, up to a bounded number of
            // objects, it spares the scan of memory when a timer holds the object. Then backwards:
            // the globals (or timers) that hold the object, and the holders on the way, so the
            // typed walk reads only those. Else (nothing found, or a holder without Swift types on
            // the way) forward from every global and timer, within what is left of the budget.
            let timers = DispatchTimerHeap.armedTimers()
            asyncAfterNames = Set(timers.filter(\.isAsyncAfter).map(\.name))
            var path: [RetainPathStep]?
            if !timers.isEmpty {
                firstWalkLimit = Self.maxFirstTimerWalk
                path = searchGlobals(holding: [], timers: timers)
                firstWalkLimit = nil
                if path != nil, !foundProven { path = nil }
            }
            if path == nil, scansBackwards, HolderScan.isSupported, let deadline {
                let handlerContexts = timers.flatMap { $0.handlers.map(\.closureContext) }.filter { $0 != 0 }
                let scan = HolderScan.run(
                    from: address(of: target), runtimeHeld: Set(handlerContexts), maxDepth: min(limits.maxDepth, Self.maxScanDepth),
                    maxHolders: Self.maxScanHolders, deadline: deadline)
                scanBound = scan.boundReached
                if !scan.rootSlots.isEmpty || !scan.runtimeHeld.isEmpty {
                    let holding = timers.filter { $0.handlers.contains { scan.runtimeHeld.contains($0.closureContext) } }
                    path = searchGlobals(holding: scan.rootSlots, timers: holding, through: scan.holders)
                    if path != nil, !foundProven { path = nil }
                }
            }
            if path == nil, ContinuousClock.now < deadline! { path = searchGlobals(timers: timers) }
            if let path {
                if foundProven { return report(steps: path, origin: .global) }
                possible = possible ?? (path, .global)
            }
        }
        if let possible {
            foundProven = false
            return report(steps: possible.steps, origin: possible.origin)
        }
        return report(steps: nil, origin: .none)
    }

    private mutating func searchCycle() -> [RetainPathStep]? {
        reset()
        nodes.append(Node(object: target, parent: -1, steps: [], depth: 0))
        seen.insert(ObjectIdentifier(target))
        recordsSuspectPaths = true
        defer { recordsSuspectPaths = false }
        return breadthFirst()
    }

    private mutating func searchRoots(_ roots: [Any]) -> [RetainPathStep]? {
        reset()
        seen.insert(ObjectIdentifier(target))
        for (position, root) in roots.enumerated() {
            let rootType = type(of: root)
            if TypeMetadata.kind(of: rootType) == .class {
                let object = root as AnyObject
                if object === target { return [] }
                if seen.insert(ObjectIdentifier(object)).inserted {
                    nodes.append(Node(object: object, parent: -1, steps: [], depth: 0))
                }
                continue
            }
            let holder = String(reflecting: rootType)
            for edge in walk.edges(ofRoot: root, holder: holder) {
                let property = edge.property.isEmpty ? "roots[\(position)]" : edge.property
                let steps = edge.steps(from: holder, property: property)
                if edge.target === target {
                    foundProven = edge.proven
                    return steps
                }
                guard seen.insert(ObjectIdentifier(edge.target)).inserted else { continue }
                guard nodes.count < limits.maxVisited else {
                    visitsReached = true
                    return nil
                }
                nodes.append(Node(object: edge.target, parent: -1, steps: steps, depth: 1,
                                  proven: edge.proven))
            }
        }
        return breadthFirst()
    }

    /// From every global and static variable of the process and every armed timer of `timers` at
    /// once (or the variables holding `slots`, through the `holders` only), breadth first: the
    /// shortest path from any of them, within the time budget.
    private mutating func searchGlobals(
        holding slots: [UInt]? = nil, timers: [DispatchTimerHeap.ArmedTimer], through holders: Set<UInt>? = nil
    ) -> [RetainPathStep]? {
        reset()
        self.holders = holders
        defer { self.holders = nil }
        seen.insert(ObjectIdentifier(target))
        let globals = slots?.isEmpty == true ? [] : GlobalRoots.collect(holding: slots)
        for root in globals {
            if TypeMetadata.kind(of: type(of: root.value)) == .class {
                let object = root.value as AnyObject
                let step = RetainPathStep(holder: root.name, property: "", kind: .global)
                if object === target { return [step] }
                guard isOnTheWay(object), seen.insert(ObjectIdentifier(object)).inserted else { continue }
                nodes.append(Node(object: object, parent: -1, steps: [step], depth: 1))
                walk.know(object)
                continue
            }
            for edge in walk.edges(ofRoot: root.value, holder: root.name) {
                if let path = start(from: edge, holder: root.name, kind: .global) { return path }
            }
        }
        for timer in timers {
            for handler in timer.handlers {
                for edge in walk.edges(ofHandler: handler, timer: timer.name) {
                    if let path = start(from: edge, holder: timer.name, kind: .timer) { return path }
                }
            }
        }
        return breadthFirst()
    }

    /// One edge from a root (`holder`, its step of `kind`): the path when it reaches the target,
    /// else nil, and the object it reaches is a node to expand when it is on the way.
    private mutating func start(from edge: ReferenceEdge, holder: String, kind: RetainPathStep.Kind) -> [RetainPathStep]? {
        let steps = edge.steps(from: holder, kind: kind)
        if edge.target === target {
            foundProven = edge.proven
            return steps
        }
        if isOnTheWay(edge.target), seen.insert(ObjectIdentifier(edge.target)).inserted {
            nodes.append(Node(object: edge.target, parent: -1, steps: steps, depth: 1, proven: edge.proven))
            walk.know(edge.target)
        }
        return nil
    }

    /// Expands nodes in order until an edge reaches the target by proven references; the first
    /// possible path is returned only if no proven one is found.
    private mutating func breadthFirst() -> [RetainPathStep]? {
        var next = 0
        var possible: [RetainPathStep]?
        while next < nodes.count {
            let node = nodes[next]
            next += 1
            guard node.depth < limits.maxDepth else {
                depthReached = true
                continue
            }
            if walk.budgetExhausted { break }
            if let deadline, next % 64 == 0, ContinuousClock().now > deadline {
                timeReached = true
                break
            }
            let holder = walk.typeName(type(of: node.object))
            let suspectsBefore = walk.suspects.count
            let edges = walk.edges(of: node.object)
            if recordsSuspectPaths {
                // A suspect on this node: the node's path, then the suspect, possible.
                for suspect in walk.suspects[suspectsBefore...] where suspectPaths.count < Self.maxSuspectPaths {
                    suspectPaths.append(path(to: next - 1) + [suspect.step])
                }
            }
            for edge in edges {
                let steps = edge.steps(from: holder)
                if edge.target === target {
                    if node.proven && edge.proven {
                        foundProven = true
                        return path(to: next - 1) + steps
                    }
                    if possible == nil { possible = path(to: next - 1) + steps }
                    continue
                }
                guard isOnTheWay(edge.target), seen.insert(ObjectIdentifier(edge.target)).inserted else { continue }
                guard nodes.count < min(limits.maxVisited, firstWalkLimit ?? .max) else {
                    visitsReached = nodes.count >= limits.maxVisited
                    foundProven = false
                    return possible
                }
                nodes.append(Node(object: edge.target, parent: next - 1, steps: steps, depth: node.depth + 1,
                                  proven: node.proven && edge.proven))
                walk.know(edge.target)
            }
        }
        foundProven = false
        return possible
    }

    /// Whether the walk goes on through `object`: always, unless a backward scan said which
    /// holders lead to the target.
    private func isOnTheWay(_ object: AnyObject) -> Bool {
        guard let holders else { return true }
        return holders.contains(address(of: object))
    }

    private func address(of object: AnyObject) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    }

    private func path(to index: Int) -> [RetainPathStep] {
        var steps: [RetainPathStep] = []
        var current = index
        while current >= 0 {
            let node = nodes[current]
            steps += node.steps.reversed()
            current = node.parent
        }
        return steps.reversed()
    }

    private mutating func reset() {
        nodes.removeAll(keepingCapacity: true)
        seen.removeAll(keepingCapacity: true)
    }

    /// The report of what was found. With no path, the first suspect is reported as a possible
    /// one (the path from the object to the holder of the suspect, which may capture it).
    private func report(steps: [RetainPathStep]?, origin: RetainPathReport.Origin) -> RetainPathReport {
        let found = (steps: steps, origin: origin)
        let suspects = found.steps == nil ? Array(walk.suspects.prefix(ownSuspects ?? walk.suspects.count)) : []
        var steps = found.steps
        var origin = found.origin
        if steps == nil, let suspected = suspectPaths.first {
            steps = suspected
            origin = .cycle
        }
        let proven = steps.map(RetainPathStep.isProven) ?? false
        var limit: String?
        if found.steps == nil {
            if timeReached || scanBound == "the time budget" {
                limit = "stopped the search from globals after \(limits.timeBudget)"
            } else if visitsReached {
                limit = "stopped after \(limits.maxVisited) objects"
            } else if walk.budgetExhausted {
                limit = "stopped after \(walk.valueBudget) values"
            } else if depthReached {
                limit = "stopped at depth \(limits.maxDepth)"
            } else if let scanBound {
                limit = "stopped the backward scan of memory at \(scanBound)"
            }
        }
        let fingerprint: LeakFingerprint
        switch (origin, found.steps) {
        case (.cycle, let steps?):
            fingerprint = .cycle(steps)
        case (.root, let steps?), (.global, let steps?):
            fingerprint = .path(steps, to: targetType)
        default:
            // A suspect's path is a guess: the leak keeps the fingerprint of its suspects.
            fingerprint = .unexplained(type: targetType, suspects: suspects.map { $0.holder + "." + $0.property })
        }
        var report = RetainPathReport(
            steps: steps, origin: origin, suspects: suspects.map(\.sentence), limitReached: limit,
            readable: readable(steps: steps, suspects: suspects, limit: limit),
            fingerprint: fingerprint.value, isProven: proven
        )
        report.throughAsyncAfter = steps?.first.map { $0.kind == .timer && asyncAfterNames.contains($0.holder) } ?? false
        report.throughDispatchSource = steps?.contains {
            $0.kind == .timer || walk.dispatchHandlerSteps.contains([$0.holder, $0.property])
        } ?? false
        return report
    }

    /// The path as `RetainPathStep.readable` prints it, then the other suspects, then the bound
    /// the search reached, once.
    private func readable(steps: [RetainPathStep]?, suspects: [RetainSuspect], limit: String?) -> String {
        var text: String
        if let steps {
            text = RetainPathStep.readable(steps, leakedType: targetType)
            let others = suspects.dropFirst().map { $0.step.readableName + " (\($0.kind.word))" }
            if !others.isEmpty { text += "; also suspected: " + others.joined(separator: ", ") }
        } else {
            text = "no strong reference path to \(RetainPathNames.short(targetType)) found"
        }
        if let limit { text += " (search \(limit))" }
        return text
    }
}
