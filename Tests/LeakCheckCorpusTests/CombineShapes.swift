import Foundation
import LeakCheck
import LeakReport
import Testing

// OpenCombine 0.14's classes, with their class and generic structure (OpenCombine/OpenCombine,
// Sources/OpenCombine/*.swift): `Subscribers.Sink` keeps its closures in a generic class,
// `AnyCancellable` keeps the canceller's `cancel` method reference, a `PassthroughSubject` keeps
// its subscriptions (`Conduit`s) in an enum of a generic class, and the Foundation timer
// publisher is a run loop's `Timer` whose block reaches the subscription. Prefixed `OC`.

protocol OCCancellable { func cancel() }

protocol OCSubscription: OCCancellable { func request(_ demand: Int) }

protocol OCSubscriber: AnyObject {
    associatedtype Input
    func receive(subscription: any OCSubscription)
    func receive(_ input: Input)
}

enum OCSubscribers {
    /// `Subscribers.Sink<Input, Failure>`.
    final class Sink<Input, Failure: Error>: OCSubscriber, OCCancellable {
        enum Status {
            case awaitingSubscription
            case subscribed(any OCSubscription)
            case terminal
        }
        var receiveValue: (Input) -> Void
        var receiveCompletion: (Failure?) -> Void
        private var status = Status.awaitingSubscription
        private let lock = NSLock()
        init(receiveCompletion: @escaping (Failure?) -> Void, receiveValue: @escaping (Input) -> Void) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }
        func receive(subscription: any OCSubscription) {
            status = .subscribed(subscription)
            subscription.request(.max)
        }
        func receive(_ input: Input) { receiveValue(input) }
        func cancel() {
            guard case let .subscribed(subscription) = status else { return }
            status = .terminal
            subscription.cancel()
            receiveValue = { _ in }
            receiveCompletion = { _ in }
        }
    }
}

/// `AnyCancellable`: the canceller's `cancel`, a method reference on a generic value.
final class OCAnyCancellable: OCCancellable, Hashable {
    private var _cancel: (() -> Void)?
    init(_ cancel: @escaping () -> Void) { _cancel = cancel }
    init<C: OCCancellable>(_ canceller: C) { _cancel = canceller.cancel }
    deinit { _cancel?() }
    func cancel() {
        _cancel?()
        _cancel = nil
    }
    func store(in set: inout Set<OCAnyCancellable>) { set.insert(self) }
    static func == (a: OCAnyCancellable, b: OCAnyCancellable) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

protocol OCPublisher {
    associatedtype Output
    func receive<Downstream: OCSubscriber>(subscriber: Downstream) where Downstream.Input == Output
}

extension OCPublisher {
    func sink(receiveValue: @escaping (Output) -> Void) -> OCAnyCancellable {
        let subscriber = OCSubscribers.Sink<Output, Never>(receiveCompletion: { _ in }, receiveValue: receiveValue)
        receive(subscriber: subscriber)
        return OCAnyCancellable(subscriber)
    }
}

class OCConduitBase<Output>: OCSubscription, Hashable {
    func request(_ demand: Int) {}
    func cancel() {}
    func offer(_ output: Output) {}
    static func == (a: OCConduitBase, b: OCConduitBase) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

enum OCConduitList<Output> {
    case empty
    case single(OCConduitBase<Output>)
    case many(Set<OCConduitBase<Output>>)
}

/// `PassthroughSubject<Output, Failure>` and its `Conduit<Downstream>`.
final class OCPassthroughSubject<Output>: OCPublisher {
    private let lock = NSLock()
    private var active = true
    var downstreams = OCConduitList<Output>.empty

    final class Conduit<Downstream: OCSubscriber>: OCConduitBase<Output> where Downstream.Input == Output {
        fileprivate var parent: OCPassthroughSubject?
        fileprivate var downstream: Downstream?
        init(parent: OCPassthroughSubject, downstream: Downstream) {
            self.parent = parent
            self.downstream = downstream
        }
        override func offer(_ output: Output) { downstream?.receive(output) }
        override func cancel() {
            parent?.remove(self)
            parent = nil
            downstream = nil
        }
    }

    func receive<Downstream: OCSubscriber>(subscriber: Downstream) where Downstream.Input == Output {
        let conduit = Conduit(parent: self, downstream: subscriber)
        switch downstreams {
        case .empty: downstreams = .single(conduit)
        case .single(let other): downstreams = .many([other, conduit])
        case .many(var all):
            all.insert(conduit)
            downstreams = .many(all)
        }
        subscriber.receive(subscription: conduit)
    }

    func send(_ value: Output) {
        switch downstreams {
        case .empty: break
        case .single(let conduit): conduit.offer(value)
        case .many(let all): all.forEach { $0.offer(value) }
        }
    }

    fileprivate func remove(_ conduit: OCConduitBase<Output>) { downstreams = .empty }
}

/// `Timer.OCombine.TimerPublisher` with `autoconnect()`: a run loop timer whose block sends to
/// the subscribers of a subject the publisher owns.
final class OCTimerPublisher: OCPublisher, @unchecked Sendable {
    typealias Output = Date
    private let subject = OCPassthroughSubject<Date>()
    private var timer: Timer?
    init(every interval: TimeInterval, on runLoop: RunLoop) {
        let timer = Timer(timeInterval: interval, repeats: true) { [weak self] _ in self?.subject.send(Date()) }
        runLoop.add(timer, forMode: .common)
        self.timer = timer
    }
    func receive<Downstream: OCSubscriber>(subscriber: Downstream) where Downstream.Input == Date {
        subject.receive(subscriber: subscriber)
    }
    deinit { timer?.invalidate() }
}

/// `sink` capturing self, stored in `self.cancellables`; the subject is a service's.
final class OCSinkViewModel {
    var cancellables = Set<OCAnyCancellable>()
    var text = ""
    init(query: OCPassthroughSubject<String>) {
        query.sink { self.text = $0 }.store(in: &cancellables)
    }
}

/// `Timer.publish(every:on:in:).autoconnect().sink { self.tick() }`, stored in `self.cancellables`.
final class OCTimerViewModel {
    var cancellables = Set<OCAnyCancellable>()
    var ticks = 0
    init() {
        OCTimerPublisher(every: 3600, on: .main).sink { (_: Date) in self.ticks += 1 }.store(in: &cancellables)
    }
}

/// `Publishers.Autoconnect`'s `SideEffectSubscription`: a struct subscription with an existential
/// field, which the sink keeps in its status, an enum payload of protocol type.
struct OCSideEffectSubscription: OCSubscription {
    let parent: OCPassthroughSubject<String>
    let upstreamSubscription: any OCSubscription
    func request(_ demand: Int) { upstreamSubscription.request(demand) }
    func cancel() { upstreamSubscription.cancel() }
}

final class OCAutoconnectViewModel {
    var cancellables = Set<OCAnyCancellable>()
    /// Structs with existential fields, in an array of existentials.
    var subscriptions: [any OCSubscription] = []
    var text = ""
    init(query: OCPassthroughSubject<String>) {
        let sink = OCSubscribers.Sink<String, Never>(receiveCompletion: { _ in }, receiveValue: { self.text = $0 })
        let conduit = OCPassthroughSubject<String>.Conduit(parent: query, downstream: sink)
        let subscription = OCSideEffectSubscription(parent: query, upstreamSubscription: conduit)
        sink.receive(subscription: subscription)
        subscriptions = [subscription]
        OCAnyCancellable(sink).store(in: &cancellables)
    }
}

final class OCWeakSinkViewModel {
    var cancellables = Set<OCAnyCancellable>()
    var text = ""
    init(query: OCPassthroughSubject<String>) {
        query.sink { [weak self] in self?.text = $0 }.store(in: &cancellables)
    }
}

@Suite("OpenCombine-shaped leaks")
struct CombineShapeTests {
    @Test func sinkKeptInItsOwnCancellables() {
        let query = OCPassthroughSubject<String>()
        let report = findRetainPath(to: OCSinkViewModel(query: query))
        #expect(report.isProven)
        #expect(report.readable == "OCSinkViewModel.cancellables[0] → OCAnyCancellable._cancel (closure) → captures "
            + "Sink<String, Never>.receiveValue (closure) → captures OCSinkViewModel")
        #expect(report.steps?.map(\.kind) == [.collection, .closure, .closure])
    }

    @Test func timerPublisherSinkKeptInItsOwnCancellables() {
        let model = OCTimerViewModel()
        let report = findRetainPath(to: model)
        #expect(report.isProven)
        #expect(report.readable == "OCTimerViewModel.cancellables[0] → OCAnyCancellable._cancel (closure) → captures "
            + "Sink<Date, Never>.receiveValue (closure) → captures OCTimerViewModel")
        model.cancellables.removeAll()
    }

    /// A struct inside an existential inside an `Any` (an enum payload, an array element) is read
    /// as the struct it is, not as the existential's bytes.
    @Test func structsInsideExistentialsAreReadAsThemselves() {
        let query = OCPassthroughSubject<String>()
        let report = findRetainPath(to: OCAutoconnectViewModel(query: query))
        #expect(report.isProven)
        #expect(report.readable == "OCAutoconnectViewModel.cancellables[0] → OCAnyCancellable._cancel (closure) → captures "
            + "Sink<String, Never>.receiveValue (closure) → captures OCAutoconnectViewModel")
        let model = OCAutoconnectViewModel(query: query)
        let held = findRetainPath(to: query, roots: [model])
        #expect(held.readable.hasPrefix("OCAutoconnectViewModel.subscriptions[0].parent → OCPassthroughSubject<String>")
            || held.readable.hasPrefix("OCAutoconnectViewModel.cancellables[0]"), "\(held.readable)")
    }

    @Test func weakSinkIsNotFlagged() async {
        let query = OCPassthroughSubject<String>()
        let model = OCWeakSinkViewModel(query: query)
        let report = findRetainPath(to: model)
        #expect(report.steps == nil, "\(report.readable)")
        #expect(report.suspects.isEmpty)
        await expectDeallocation(timeout: .seconds(2)) { [OCWeakSinkViewModel(query: query)] }
    }
}
