import Foundation
import LeakCheck
import LeakReport
import Testing

// Leaks through closures, as real code writes them: each shape names the property that stores
// the closure, and what the closure captures.

final class ProfileViewModel {
    var onDone: (() -> Void)?
    var count = 0
    init() { onDone = { self.count += 1 } }
}

final class FormViewModel {
    struct Handlers {
        var onTap: () -> Void = {}
        var title = "form"
    }
    var handlers = Handlers()
    var taps = 0
    init() {
        let label = "tapped"
        handlers.onTap = { print(label, self.taps) }
    }
}

final class EventBus {
    var handlers: [String: (Int) -> Void] = [:]
    var last = 0
    init() { handlers["tap"] = { self.last = $0 } }
}

/// A reactive operator that hides its fields: its `Mirror` shows no children.
struct MapOperator: CustomReflectable {
    let transform: (Int) -> Int
    var customMirror: Mirror { Mirror(self, children: []) }
}

final class MappingViewModel {
    var pipeline: MapOperator?
    var factor = 2
    init() { pipeline = MapOperator(transform: { $0 * self.factor }) }
}

final class BoxedCounter {
    var onEvent: (() -> Void)?
    var count = 0
    init() {
        var target: BoxedCounter? = self
        onEvent = {
            target?.count += 1
            if target?.count == .max { target = nil }
        }
    }
}

/// The outer closure is `[weak self]`; the one it stores captures self strongly.
final class WeakThenStrong {
    var setup: (() -> Void)?
    var inner: (() -> Void)?
    var count = 0
    init() {
        setup = { [weak self] in
            guard let self else { return }
            self.inner = { self.count += 1 }
        }
        setup?()
    }
}

final class NestedClosureOwner {
    var run: (() -> Void)?
    var count = 0
    init() {
        let step: () -> Void = { self.count += 1 }
        let tag = 7
        run = { step(); print(tag) }
    }
}

final class EnumPayloadOwner {
    enum State {
        case idle
        case loading(completion: () -> Void)
    }
    var state: State = .idle
    init() { state = .loading(completion: { _ = self }) }
}

final class ExistentialClosureOwner {
    var action: Any = 0
    init() {
        let closure: () -> Void = { _ = self }
        action = closure
    }
}

/// A subject and a sink, as reactive libraries build them: the subscription lives in the
/// subject, the cancellable in the view model, the sink's closure captures the view model.
final class Subject<Value> {
    var subscribers: [(Value) -> Void] = []
    func sink(_ receive: @escaping (Value) -> Void) -> Cancellable {
        subscribers.append(receive)
        return Cancellable { [weak self] in self?.subscribers.removeAll() }
    }
}

final class Cancellable: Hashable {
    let cancel: () -> Void
    init(_ cancel: @escaping () -> Void) { self.cancel = cancel }
    static func == (a: Cancellable, b: Cancellable) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

final class SearchViewModel {
    let query = Subject<String>()
    var cancellables: Set<Cancellable> = []
    var text = ""
    init() {
        query.sink { self.text = $0 }.store(in: &cancellables)
    }
}

extension Cancellable {
    func store(in set: inout Set<Cancellable>) { set.insert(self) }
}

final class MultiCapture {
    var render: (() -> String)?
    var title = "t"
    init() {
        let prefix = "p"
        let count = 3
        let scale = 2.5
        render = { "\(prefix)\(count)\(scale)\(self.title)" }
    }
}

@Suite("Closure leak shapes")
struct ClosureShapeTests {
    @Test func selfCapturingClosure() {
        let report = findRetainPath(to: ProfileViewModel())
        #expect(report.readable == "ProfileViewModel.onDone (closure) → captures ProfileViewModel")
        #expect(report.steps == [RetainPathStep(holder: "LeakCheckCorpusTests.ProfileViewModel", property: "onDone", kind: .closure)])
        #expect(report.suspects.isEmpty)
    }

    @Test func closureInAStruct() {
        let report = findRetainPath(to: FormViewModel())
        #expect(report.readable == "FormViewModel.handlers.onTap (closure) → captures FormViewModel")
    }

    @Test func closureInADictionaryOfHandlers() {
        let report = findRetainPath(to: EventBus())
        #expect(report.readable == "EventBus.handlers[\"tap\"] (closure) → captures EventBus")
    }

    @Test func closureBehindAnEmptyCustomMirror() {
        let report = findRetainPath(to: MappingViewModel())
        #expect(report.readable == "MappingViewModel.pipeline.transform (closure) → captures MappingViewModel")
    }

    @Test func capturedVarBox() {
        let report = findRetainPath(to: BoxedCounter())
        #expect(report.readable == "BoxedCounter.onEvent (closure) → captures BoxedCounter")
    }

    @Test func strongCaptureSetUpInsideAWeakSelfClosure() {
        let report = findRetainPath(to: WeakThenStrong())
        #expect(report.readable == "WeakThenStrong.inner (closure) → captures WeakThenStrong")
    }

    @Test func nestedClosure() {
        let report = findRetainPath(to: NestedClosureOwner())
        #expect(report.readable == "NestedClosureOwner.run (closure) → captures NestedClosureOwner")
    }

    @Test func closureInAnEnumPayload() {
        let report = findRetainPath(to: EnumPayloadOwner())
        #expect(report.readable == "EnumPayloadOwner.state.loading.completion (closure) → captures EnumPayloadOwner")
    }

    @Test func closureInAnExistential() {
        let report = findRetainPath(to: ExistentialClosureOwner())
        #expect(report.readable == "ExistentialClosureOwner.action (closure) → captures ExistentialClosureOwner")
    }

    @Test func subjectAndSink() {
        let report = findRetainPath(to: SearchViewModel())
        #expect(report.readable == "SearchViewModel.query → Subject<String>.subscribers[0] (closure) → captures SearchViewModel")
    }

    @Test func closureWithSeveralCaptures() {
        let report = findRetainPath(to: MultiCapture())
        #expect(report.readable == "MultiCapture.render (closure) → captures MultiCapture")
    }
}
