import LeakReport
import Testing
@testable import LeakCheck
@testable import LeakRuntime

@Suite("Retain paths")
struct FindRetainPathTests {
    // MARK: Leaking shapes: the property that holds the object is named

    @Test func closureStoredOnSelfIsACycleThroughItsCapture() {
        let object = SelfCapturingClosure()
        let report = findRetainPath(to: object)
        #expect(report.origin == .cycle)
        #expect(report.steps == [RetainPathStep(holder: "LeakCheckTests.SelfCapturingClosure", property: "onDone", kind: .closure)])
        #expect(report.suspects.isEmpty)
        #expect(report.readable == "SelfCapturingClosure.onDone (closure) → captures SelfCapturingClosure")
    }

    @Test func strongDelegate() {
        let report = findRetainPath(to: LeakCheckTests.strongDelegate())
        #expect(report.origin == .cycle)
        #expect(report.readable == "ProfilePresenter.delegate → ProfileScreen.presenter → ProfilePresenter")
        #expect(report.steps == [
            RetainPathStep(holder: "LeakCheckTests.ProfilePresenter", property: "delegate", kind: .strong),
            RetainPathStep(holder: "LeakCheckTests.ProfileScreen", property: "presenter", kind: .strong),
        ])
    }

    @Test func parentAndChildThroughAnArray() {
        let report = findRetainPath(to: parentChildThroughArray())
        #expect(report.readable == "ChildCoordinator.parent → MainCoordinator.children[1] → ChildCoordinator")
        #expect(report.steps?.last == RetainPathStep(
            holder: "LeakCheckTests.MainCoordinator", property: "children[1]", kind: .collection))
    }

    @Test func setsAndContiguousArrays() {
        let a = SetMember(), b = SetMember()
        a.peers = [b]
        b.slots = [nil, a]
        #expect(findRetainPath(to: a).readable == "SetMember.peers[0] → SetMember.slots[1] → SetMember")
        #expect(findRetainPath(to: a).steps?.map(\.kind) == [.collection, .collection])
        b.slots = []
    }

    @Test func parentAndChildThroughADictionary() {
        let report = findRetainPath(to: parentChildThroughDictionary())
        #expect(report.readable
            == "RegisteredScreen.registry → ScreenRegistry.screens[\"profile\"] → RegisteredScreen")
        #expect(report.steps?.last?.kind == .collection)
    }

    @Test func enumPayload() {
        let report = findRetainPath(to: LeakCheckTests.enumPayload())
        #expect(report.readable == "Session.state.active.owner → Session")
    }

    @Test func structField() {
        let report = findRetainPath(to: LeakCheckTests.structField())
        #expect(report.readable == "Widget.context.owner → Widget")
        #expect(report.steps?.first?.kind == .strong)
    }

    @Test func tupleElement() {
        let report = findRetainPath(to: LeakCheckTests.tupleElement())
        #expect(report.readable == "TupleItem.holder → TupleHolder.entry.item → TupleItem")
    }

    @Test func unlabelledTupleElement() {
        let holder = TupleHolder()
        let item = TupleItem()
        item.holder = holder
        holder.pair = (1, item)
        #expect(findRetainPath(to: item).readable == "TupleItem.holder → TupleHolder.pair.1 → TupleItem")
    }

    @Test func threeObjectRingFromEachObject() {
        let (a, b, c) = threeObjectRing()
        let fromA = findRetainPath(to: a), fromB = findRetainPath(to: b), fromC = findRetainPath(to: c)
        #expect(fromA.readable == "RingA.next → RingB.next → RingC.next → RingA")
        #expect(fromB.readable == "RingB.next → RingC.next → RingA.next → RingB")
        #expect(fromC.steps?.count == 3)
        #expect(fromA.fingerprint == fromB.fingerprint)
        #expect(fromB.fingerprint == fromC.fingerprint)
    }

    @Test func propertyDeclaredInASuperclass() {
        let report = findRetainPath(to: superclassProperty())
        #expect(report.readable == "SettingsScreen.coordinator → SettingsCoordinator.screen → SettingsScreen")
        #expect(report.steps?.first?.holder == "LeakCheckTests.SettingsScreen")
    }

    @Test func lazyClosureIsNamedByItsProperty() {
        let report = findRetainPath(to: lazyClosure())
        #expect(report.readable == "LazyClosureHolder.handler (closure) → captures LazyClosureHolder")
        #expect(report.suspects.isEmpty)
    }

    @Test func holderReachableOnlyFromARoot() {
        let cache = ImageCache()
        let image = CachedImage()
        cache.entries = [CachedImage(), image]
        #expect(findRetainPath(to: image).steps == nil)

        let report = findRetainPath(to: image, roots: [cache])
        #expect(report.origin == .root)
        #expect(report.readable == "ImageCache.entries[1] → CachedImage")
    }

    @Test func rootThatIsAValue() {
        let image = CachedImage()
        let report = findRetainPath(to: image, roots: [42, ["thumb": image]])
        #expect(report.readable == "Dictionary<String, CachedImage>[\"thumb\"] → CachedImage")
        #expect(report.steps?.first?.holder == "Swift.Dictionary<Swift.String, LeakCheckTests.CachedImage>")
    }

    @Test func strongExistentialDelegate() {
        let report = findRetainPath(to: LeakCheckTests.strongExistentialDelegate())
        #expect(report.readable == "PlayerScreen.player → Player.delegate → PlayerScreen")
    }

    @Test func genericClass() {
        let report = findRetainPath(to: genericHolder())
        #expect(report.readable == "BoxOwner.box → GenericBox<Optional<BoxOwner>>.value → BoxOwner")
        #expect(report.steps?.allSatisfy { $0.kind == .strong } == true)
    }

    @Test func tasksTimersAndDispatchSourcesThatHoldNothingAreNoSuspects() async {
        let poller = Poller()
        poller.start()
        await poller.task?.value
        let ticker = Ticker()
        let owner = SourceOwner()
        defer {
            owner.stop()
            ticker.timer?.invalidate()
        }
        // A finished task has released what it captured; a timer's block that captures nothing
        // and a source without handlers (both read by their layouts) hold nothing: no suspects.
        #expect(findRetainPath(to: poller).suspects == [])
        #expect(findRetainPath(to: ticker).suspects == [])
        #expect(findRetainPath(to: owner).suspects == [])
    }

    /// Where a method reference was written, from its forwarder's demangled symbol.
    @Test func methodReferencePlacesReadFromTheirSymbols() {
        #expect(MethodReference.place("App.Model.init() -> App.Model")! == ("App.Model", "init()"))
        #expect(MethodReference.place("App.Coordinator.start(with: Swift.Int, Swift.String) -> ()")! == ("App.Coordinator", "start(with:_:)"))
        #expect(MethodReference.place("App.Box<App.Item>.bind(to: (Swift.Int, Swift.String) -> (), index: Swift.Int) -> ()")!
            == ("App.Box<App.Item>", "bind(to:index:)"))
        #expect(MethodReference.place("App")! == ("App", ""))
        #expect(MethodReference.place("not a function") == nil)
        #expect(MethodReference.place("start(") == nil)
    }

    @Test func closuresReadByTheirTypesOnReachedObjectsAreNoSuspects() {
        let closure = SelfCapturingClosure()
        let holder = GenericBox(closure)
        // `onDone` captures `closure`, an edge the search follows: it cannot hold `holder`.
        let report = findRetainPath(to: holder)
        #expect(report.steps == nil)
        #expect(report.suspects.isEmpty)
    }

    // MARK: Clean shapes: never reported as cycles

    @Test func weakDelegateIsNoCycle() {
        let (screen, presenter) = weakDelegate()
        #expect(findRetainPath(to: screen).steps == nil)
        #expect(findRetainPath(to: presenter).steps == nil)
        #expect(findRetainPath(to: screen).suspects.isEmpty)
    }

    @Test func unownedBackReferenceIsNoCycle() {
        let document = unownedBackReference()
        #expect(findRetainPath(to: document).steps == nil)
        #expect(findRetainPath(to: document.pages[0]).steps == nil)
    }

    @Test func unownedReferenceToAGoneObjectIsNeverLoaded() {
        // Loading an unowned reference whose object is gone traps; the walk must skip it unread.
        var document: Document? = Document()
        let page = Page(document: document!)
        let holder = GenericBox(page)
        weak let gone = document
        document = nil
        #expect(gone == nil)
        #expect(findRetainPath(to: holder).steps == nil)
        #expect(findRetainPath(to: page, roots: [holder]).readable == "GenericBox<Page>.value → Page")
    }

    @Test func weakSelfClosureIsNoCycle() {
        let report = findRetainPath(to: WeakSelfClosure())
        #expect(report.steps == nil)
        #expect(report.origin == .none)
    }

    @Test func weakFieldInAStructIsNoCycle() {
        #expect(findRetainPath(to: weakStructField()).steps == nil)
    }

    @Test func weakExistentialIsNoCycle() {
        #expect(findRetainPath(to: weakExistentialDelegate()).steps == nil)
    }

    @Test func mutexFieldIsReadByItsDeclaredType() {
        let a = GuardedState(), b = GuardedState()
        a.other = b
        b.other = a
        // Inside a Mutex, whose type the runtime does not build for reflection: its declared type
        // (from the field's symbol) says the array is its value, so the path is proven, and the
        // shortest.
        a.guarded.withLock { $0.append(a) }
        #expect(findRetainPath(to: a).readable == "GuardedState.guarded[0] → GuardedState")
        #expect(findRetainPath(to: a).isProven)
        a.guarded.withLock { $0.removeAll() }
        #expect(findRetainPath(to: a).readable == "GuardedState.other → GuardedState.other → GuardedState")
        b.other = nil
        a.guarded.withLock { $0.append(a) }
        #expect(findRetainPath(to: a).readable == "GuardedState.guarded[0] → GuardedState")
        a.guarded.withLock { $0.removeAll() }
    }

    // MARK: Unknown ownership and bounds

    @Test func customMirrorDoesNotHideStoredFields() {
        let a = CustomMirrored(), b = CustomMirrored()
        a.other = b
        b.other = a
        let report = findRetainPath(to: a)
        #expect(report.readable == "CustomMirrored.other → CustomMirrored.other → CustomMirrored")
        #expect(report.steps?.map(\.kind) == [.strong, .strong])
    }

    @Test func withoutFieldMetadataStepsAreUnknown() {
        let unknown = " (possible: ProfilePresenter.delegate and ProfileScreen.presenter are not proven to hold it strongly)"
        var search = RetainPathSearch(target: LeakCheckTests.strongDelegate(), limits: RetainPathLimits(timeBudget: .seconds(30)),
                                      readsFieldMetadata: false)
        let report = search.run(roots: [])
        #expect(report.readable == "ProfilePresenter.delegate → ProfileScreen.presenter → ProfilePresenter" + unknown)
        #expect(report.steps?.map(\.kind) == [.unknown, .unknown])

        // Without metadata a weak delegate cannot be told from a strong one: it is walked, but
        // every step says so instead of claiming a cycle.
        let (screen, presenter) = weakDelegate()
        var weakSearch = RetainPathSearch(target: presenter, limits: RetainPathLimits(timeBudget: .seconds(30)), readsFieldMetadata: false)
        #expect(weakSearch.run(roots: []).steps?.allSatisfy { $0.kind == .unknown } == true)
        withExtendedLifetime(screen) {}
    }

    @Test func depthLimitIsReported() {
        let first = chain(length: 20)
        // Not from globals: this case is the depth bound, and a search of every global can use up
        // the time budget first on a busy machine (it did in CI).
        let bounded = findRetainPath(to: first, limits: RetainPathLimits(maxDepth: 5, searchesGlobals: false))
        #expect(bounded.steps == nil)
        #expect(bounded.limitReached == "stopped at depth 5")
        #expect(bounded.readable == "no strong reference path to ChainLink found (search stopped at depth 5)")

        let found = findRetainPath(to: first, limits: RetainPathLimits(maxDepth: 20))
        #expect(found.steps?.count == 20)
        #expect(found.limitReached == nil)
    }

    @Test func visitLimitIsReported() {
        let target = CachedImage()
        let cache = ImageCache()
        cache.entries = (0..<1_000).map { _ in CachedImage() } + [target]
        let report = findRetainPath(to: target, roots: [cache], limits: RetainPathLimits(maxVisited: 10))
        #expect(report.steps == nil)
        #expect(report.limitReached == "stopped after 10 objects")

        let fromValue = findRetainPath(to: target, roots: [cache.entries], limits: RetainPathLimits(maxVisited: 10))
        #expect(fromValue.steps == nil)
        #expect(fromValue.limitReached == "stopped after 10 objects")
        #expect(findRetainPath(to: target, roots: [cache.entries]).readable == "Array<CachedImage>[1000] → CachedImage")
    }

    @Test func shortestPathWins() {
        // a → b → d → a is found first by a depth-first walk; a → c → a is shorter.
        let a = GraphNode(), b = GraphNode(), c = GraphNode(), d = GraphNode()
        a.edges = [b, c]
        b.edges = [d]
        d.edges = [a]
        c.edges = [a]
        #expect(findRetainPath(to: a).readable == "GraphNode.edges[1] → GraphNode.edges[0] → GraphNode")
    }

    // MARK: Fingerprints

    @Test func fingerprintIsTheSameInEveryProcess() {
        // Swift's Hasher is seeded per process; a literal pins the hash across processes and
        // machines. Both values were cross-checked with an independent FNV-1a in Python over
        // "cycle␟LeakCheckTests.RingA.next␟LeakCheckTests.RingB.next␟LeakCheckTests.RingC.next".
        let (a, _, _) = threeObjectRing()
        #expect(findRetainPath(to: a).fingerprint == "ac5b4d674c46b14f")
        #expect(findRetainPath(to: parentChildThroughArray()).fingerprint == "ba87dd29a06b303f")
    }

    @Test func fingerprintIgnoresIndicesAndKeys() {
        let first = parentChildThroughArray()
        let main = MainCoordinator()
        let other = ChildCoordinator()
        other.parent = main
        main.children = [other]
        #expect(findRetainPath(to: first).fingerprint == findRetainPath(to: other).fingerprint)
    }

    @Test func fingerprintsDifferBetweenShapes() {
        let fingerprints = [
            findRetainPath(to: LeakCheckTests.strongDelegate()).fingerprint,
            findRetainPath(to: parentChildThroughArray()).fingerprint,
            findRetainPath(to: parentChildThroughDictionary()).fingerprint,
            findRetainPath(to: LeakCheckTests.enumPayload()).fingerprint,
            findRetainPath(to: LeakCheckTests.structField()).fingerprint,
            findRetainPath(to: LeakCheckTests.tupleElement()).fingerprint,
            findRetainPath(to: threeObjectRing().0).fingerprint,
            findRetainPath(to: superclassProperty()).fingerprint,
            findRetainPath(to: SelfCapturingClosure()).fingerprint,
            findRetainPath(to: lazyClosure()).fingerprint,
        ]
        #expect(Set(fingerprints).count == fingerprints.count)
        #expect(fingerprints.allSatisfy { $0.count == 16 })
    }
}
