import Dispatch
import Foundation
import LeakCheck
import LeakReport
import Testing

// RxSwift 6's classes, with their class and generic structure (ReactiveX/RxSwift, RxSwift/*.swift):
// an observer's event handler is a closure stored in a generic class, sinks and disposers are
// held through protocol existentials, a subject keeps its observers' `on` method references in a
// generic `Bag`, a scheduler's periodic timer is a dispatch source whose handler holds the sink.
// Names are prefixed `Rx` so they do not clash with the other shapes.

enum RxEvent<Element> {
    case next(Element)
    case error(any Error)
    case completed
}

protocol RxDisposable { func dispose() }
protocol RxCancelable: RxDisposable { var isDisposed: Bool { get } }

protocol RxObserverType {
    associatedtype Element
    func on(_ event: RxEvent<Element>)
}

/// `AtomicInt` is a class in RxSwift 6 (a `NSLock` subclass there; a lock it holds here).
final class RxAtomicInt: @unchecked Sendable {
    private let lock = NSLock()
    var value: Int32
    init(_ value: Int32 = 0) { self.value = value }
}

class RxDisposeBase {}

/// `RxSwift.ObserverBase<Element>`.
class RxObserverBase<Element>: RxDisposable, RxObserverType {
    private let isStopped = RxAtomicInt(0)
    func on(_ event: RxEvent<Element>) { onCore(event) }
    func onCore(_ event: RxEvent<Element>) {}
    func dispose() { isStopped.value = 1 }
}

/// `RxSwift.AnonymousObserver<Element>`: the handler is a closure stored in a generic class.
final class RxAnonymousObserver<Element>: RxObserverBase<Element> {
    typealias EventHandler = (RxEvent<Element>) -> Void
    private let eventHandler: EventHandler
    init(_ eventHandler: @escaping EventHandler) { self.eventHandler = eventHandler }
    override func onCore(_ event: RxEvent<Element>) { eventHandler(event) }
}

/// `RxSwift.AnyObserver<Element>` and its `Bag` of `on` functions.
struct RxAnyObserver<Element> {
    typealias EventHandler = (RxEvent<Element>) -> Void
    typealias s = RxBag<EventHandler>
}

struct RxBagKey: Hashable { let rawValue: UInt64 }

/// `RxSwift.Bag<T>`: the first value inline, the next 29 in an array, the rest in a dictionary.
struct RxBag<T> {
    typealias Entry = (key: RxBagKey, value: T)
    private var _nextKey = RxBagKey(rawValue: 0)
    var _key0: RxBagKey?
    var _value0: T?
    var _pairs = ContiguousArray<Entry>()
    var _dictionary: [RxBagKey: T]?
    var _onlyFastPath = true

    mutating func insert(_ element: T) -> RxBagKey {
        let key = _nextKey
        _nextKey = RxBagKey(rawValue: _nextKey.rawValue &+ 1)
        if _key0 == nil {
            _key0 = key
            _value0 = element
            return key
        }
        _onlyFastPath = false
        if _pairs.count < 30 {
            _pairs.append((key: key, value: element))
            return key
        }
        _dictionary = (_dictionary ?? [:]).merging([key: element]) { $1 }
        return key
    }

    mutating func removeAll() {
        _key0 = nil
        _value0 = nil
        _pairs.removeAll(keepingCapacity: false)
        _dictionary?.removeAll(keepingCapacity: false)
    }
}

class RxObservable<Element> {
    func subscribe<Observer: RxObserverType>(_ observer: Observer) -> any RxDisposable where Observer.Element == Element {
        fatalError("abstract")
    }
}

/// `Disposables.create(_:_:)`.
private final class RxBinaryDisposable: RxDisposeBase, RxCancelable {
    private let disposed = RxAtomicInt(0)
    private var disposable1: (any RxDisposable)?
    private var disposable2: (any RxDisposable)?
    var isDisposed: Bool { disposed.value == 1 }
    init(_ disposable1: any RxDisposable, _ disposable2: any RxDisposable) {
        self.disposable1 = disposable1
        self.disposable2 = disposable2
    }
    func dispose() {
        guard disposed.value == 0 else { return }
        disposed.value = 1
        disposable1?.dispose()
        disposable2?.dispose()
        disposable1 = nil
        disposable2 = nil
    }
}

/// `Disposables.create(with:)`.
private final class RxAnonymousDisposable: RxDisposeBase, RxCancelable {
    typealias DisposeAction = () -> Void
    private let disposed = RxAtomicInt(0)
    private var disposeAction: DisposeAction?
    var isDisposed: Bool { disposed.value == 1 }
    init(_ disposeAction: @escaping DisposeAction) { self.disposeAction = disposeAction }
    func dispose() {
        disposed.value = 1
        let action = disposeAction
        disposeAction = nil
        action?()
    }
}

private struct RxNopDisposable: RxDisposable { func dispose() {} }

enum RxDisposables {
    static func create() -> any RxDisposable { RxNopDisposable() }
    static func create(with action: @escaping () -> Void) -> any RxCancelable { RxAnonymousDisposable(action) }
    static func create(_ a: any RxDisposable, _ b: any RxDisposable) -> any RxCancelable { RxBinaryDisposable(a, b) }
}

extension RxObservable {
    /// `ObservableType.subscribe(onNext:onError:onCompleted:onDisposed:)`.
    func subscribe(
        onNext: ((Element) -> Void)? = nil, onError: ((any Error) -> Void)? = nil, onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> any RxDisposable {
        let disposable: any RxDisposable
        if let onDisposed { disposable = RxDisposables.create(with: onDisposed) } else { disposable = RxDisposables.create() }
        let callStack: [String] = []
        let observer = RxAnonymousObserver<Element> { event in
            switch event {
            case .next(let value): onNext?(value)
            case .error(let error):
                if let onError { onError(error) } else { print(callStack, error) }
                disposable.dispose()
            case .completed:
                onCompleted?()
                disposable.dispose()
            }
        }
        return RxDisposables.create(subscribe(observer), disposable)
    }

    /// `subscribe(with:onNext:)`: the object is kept weakly.
    func subscribe<Object: AnyObject>(with object: Object, onNext: @escaping (Object, Element) -> Void) -> any RxDisposable {
        subscribe(onNext: { [weak object] value in
            guard let object else { return }
            onNext(object, value)
        })
    }
}

/// `RxSwift.Sink<Observer>`.
class RxSink<Observer: RxObserverType>: RxDisposable {
    fileprivate let observer: Observer
    fileprivate let cancel: any RxCancelable
    private let disposed = RxAtomicInt(0)
    init(observer: Observer, cancel: any RxCancelable) {
        self.observer = observer
        self.cancel = cancel
    }
    final func forwardOn(_ event: RxEvent<Observer.Element>) { observer.on(event) }
    func dispose() {
        guard disposed.value == 0 else { return }
        disposed.value = 1
        cancel.dispose()
    }
}

/// `RxSwift.SinkDisposer`: the sink and the subscription, through existentials.
private final class RxSinkDisposer: RxCancelable {
    private let state = RxAtomicInt(0)
    private var sink: (any RxDisposable)?
    private var subscription: (any RxDisposable)?
    var isDisposed: Bool { state.value & 1 != 0 }
    func setSinkAndSubscription(sink: any RxDisposable, subscription: any RxDisposable) {
        self.sink = sink
        self.subscription = subscription
    }
    func dispose() {
        guard state.value & 1 == 0 else { return }
        state.value |= 1
        sink?.dispose()
        subscription?.dispose()
        sink = nil
        subscription = nil
    }
}

/// `RxSwift.Producer<Element>`.
class RxProducer<Element>: RxObservable<Element> {
    override func subscribe<Observer: RxObserverType>(_ observer: Observer) -> any RxDisposable where Observer.Element == Element {
        let disposer = RxSinkDisposer()
        let sinkAndSubscription = run(observer, cancel: disposer)
        disposer.setSinkAndSubscription(sink: sinkAndSubscription.sink, subscription: sinkAndSubscription.subscription)
        return disposer
    }
    func run<Observer: RxObserverType>(_ observer: Observer, cancel: any RxCancelable)
        -> (sink: any RxDisposable, subscription: any RxDisposable) where Observer.Element == Element {
        fatalError("abstract")
    }
}

/// `RxSwift.Map` and its `MapSink`.
final class RxMap<SourceType, ResultType>: RxProducer<ResultType> {
    typealias Transform = (SourceType) throws -> ResultType
    private let source: RxObservable<SourceType>
    private let transform: Transform
    init(source: RxObservable<SourceType>, transform: @escaping Transform) {
        self.source = source
        self.transform = transform
    }
    override func run<Observer: RxObserverType>(_ observer: Observer, cancel: any RxCancelable)
        -> (sink: any RxDisposable, subscription: any RxDisposable) where Observer.Element == ResultType {
        let sink = RxMapSink(transform: transform, observer: observer, cancel: cancel)
        let subscription = source.subscribe(sink)
        return (sink: sink, subscription: subscription)
    }
}

final class RxMapSink<SourceType, Observer: RxObserverType>: RxSink<Observer>, RxObserverType {
    typealias Transform = (SourceType) throws -> Observer.Element
    private let transform: Transform
    init(transform: @escaping Transform, observer: Observer, cancel: any RxCancelable) {
        self.transform = transform
        super.init(observer: observer, cancel: cancel)
    }
    func on(_ event: RxEvent<SourceType>) {
        switch event {
        case .next(let element): if let mapped = try? transform(element) { forwardOn(.next(mapped)) }
        case .error(let error): forwardOn(.error(error))
        case .completed: forwardOn(.completed)
        }
    }
}

extension RxObservable {
    func map<Result>(_ transform: @escaping (Element) throws -> Result) -> RxObservable<Result> {
        RxMap(source: self, transform: transform)
    }
}

/// `RxSwift.PublishSubject<Element>`: its observers' `on` functions in a `Bag`.
final class RxPublishSubject<Element>: RxObservable<Element>, RxObserverType {
    typealias Observers = RxAnyObserver<Element>.s
    private let lock = NSRecursiveLock()
    private var observers = Observers()
    private var stopped = false

    func on(_ event: RxEvent<Element>) {
        lock.lock()
        let handlers = observers
        lock.unlock()
        handlers._value0?(event)
        for pair in handlers._pairs { pair.value(event) }
    }

    override func subscribe<Observer: RxObserverType>(_ observer: Observer) -> any RxDisposable where Observer.Element == Element {
        lock.lock()
        defer { lock.unlock() }
        let key = observers.insert(observer.on)
        return RxSubscriptionDisposable(owner: self, key: key)
    }

    func unsubscribe(_ key: RxBagKey) {
        lock.lock()
        defer { lock.unlock() }
        observers.removeAll()
        _ = key
    }
}

/// `RxSwift.SubscriptionDisposable`: the subject weakly.
struct RxSubscriptionDisposable<Element>: RxDisposable {
    private let key: RxBagKey
    private weak var owner: RxPublishSubject<Element>?
    init(owner: RxPublishSubject<Element>, key: RxBagKey) {
        self.owner = owner
        self.key = key
    }
    func dispose() { owner?.unsubscribe(key) }
}

/// `RxRelay.BehaviorRelay<Element>` over `BehaviorSubject`, which keeps its observers as
/// `PublishSubject` does.
final class RxBehaviorSubject<Element>: RxObservable<Element>, RxObserverType {
    typealias Observers = RxAnyObserver<Element>.s
    private let lock = NSRecursiveLock()
    private var element: Element
    private var observers = Observers()
    init(value: Element) { element = value }
    func on(_ event: RxEvent<Element>) {
        if case .next(let value) = event { element = value }
        observers._value0?(event)
    }
    override func subscribe<Observer: RxObserverType>(_ observer: Observer) -> any RxDisposable where Observer.Element == Element {
        lock.lock()
        defer { lock.unlock() }
        let key = observers.insert(observer.on)
        observer.on(.next(element))
        return RxAnonymousDisposable { [weak self] in self?.observers.removeAll(); _ = key }
    }
}

final class RxBehaviorRelay<Element> {
    private let subject: RxBehaviorSubject<Element>
    init(value: Element) { subject = RxBehaviorSubject(value: value) }
    func accept(_ event: Element) { subject.on(.next(event)) }
    func asObservable() -> RxObservable<Element> { subject }
}

/// `RxSwift.DisposeBag`.
final class RxDisposeBag: RxDisposeBase {
    private var lock = NSRecursiveLock()
    private var disposables = [any RxDisposable]()
    private var isDisposed = false
    func insert(_ disposable: any RxDisposable) {
        lock.lock()
        defer { lock.unlock() }
        disposables.append(disposable)
    }
    deinit { for disposable in disposables { disposable.dispose() } }
}

extension RxDisposable {
    func disposed(by bag: RxDisposeBag) { bag.insert(self) }
}

/// `SerialDispatchQueueScheduler` and `DispatchQueueConfiguration.schedulePeriodic`: a timer
/// source on the scheduler's queue; its handler captures the state's box and the action, which
/// captures the sink.
final class RxSerialDispatchQueueScheduler {
    let queue: DispatchQueue
    init(internalSerialQueueName: String) { queue = DispatchQueue(label: internalSerialQueueName) }

    func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: DispatchTimeInterval, period: DispatchTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> any RxDisposable {
        var timerState = state
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + startAfter, repeating: period, leeway: .nanoseconds(0))
        var timerReference: (any DispatchSourceTimer)? = timer
        let cancelTimer = RxDisposables.create {
            timerReference?.cancel()
            timerReference = nil
        }
        timer.setEventHandler(handler: {
            if cancelTimer.isDisposed { return }
            timerState = action(timerState)
        })
        timer.resume()
        return cancelTimer
    }
}

/// `Observable<Int>.interval(_:scheduler:)`: `Timer` and `TimerSink`.
final class RxTimer: RxProducer<Int> {
    fileprivate let scheduler: RxSerialDispatchQueueScheduler
    fileprivate let period: DispatchTimeInterval
    init(period: DispatchTimeInterval, scheduler: RxSerialDispatchQueueScheduler) {
        self.period = period
        self.scheduler = scheduler
    }
    override func run<Observer: RxObserverType>(_ observer: Observer, cancel: any RxCancelable)
        -> (sink: any RxDisposable, subscription: any RxDisposable) where Observer.Element == Int {
        let sink = RxTimerSink(parent: self, observer: observer, cancel: cancel)
        return (sink: sink, subscription: sink.run())
    }
}

final class RxTimerSink<Observer: RxObserverType>: RxSink<Observer> where Observer.Element == Int {
    private let parent: RxTimer
    private let lock = NSRecursiveLock()
    init(parent: RxTimer, observer: Observer, cancel: any RxCancelable) {
        self.parent = parent
        super.init(observer: observer, cancel: cancel)
    }
    func run() -> any RxDisposable {
        parent.scheduler.schedulePeriodic(0, startAfter: parent.period, period: parent.period) { state in
            self.lock.lock()
            self.forwardOn(.next(state))
            self.lock.unlock()
            return state &+ 1
        }
    }
}

extension RxObservable where Element == Int {
    static func interval(_ period: DispatchTimeInterval, scheduler: RxSerialDispatchQueueScheduler) -> RxObservable<Int> {
        RxTimer(period: period, scheduler: scheduler)
    }
}

// The five shapes of issue 49, and the clean forms of each.

/// `subscribe(onNext:)` capturing self, kept in `self.disposeBag`; the source is a service's.
final class RxBagViewModel {
    let disposeBag = RxDisposeBag()
    var total = 0
    init(source: RxObservable<Int>) {
        source.map { $0 * 2 }.subscribe(onNext: { self.total += $0 }).disposed(by: disposeBag)
    }
}

/// A `BehaviorRelay` of self's, subscribed with a strong capture.
final class RxRelayViewModel {
    let disposeBag = RxDisposeBag()
    let title = RxBehaviorRelay(value: "")
    var shown = ""
    init() {
        title.asObservable().subscribe(onNext: { self.shown = $0 }).disposed(by: disposeBag)
    }
}

/// A `PublishSubject` of self's, subscribed with a strong capture, the Disposable dropped.
final class RxSubjectViewModel {
    let taps = RxPublishSubject<Int>()
    var count = 0
    init() {
        _ = taps.subscribe(onNext: { self.count += $0 })
    }
}

/// `Observable.interval` on a serial dispatch queue scheduler, never disposed.
final class RxIntervalViewModel {
    let scheduler = RxSerialDispatchQueueScheduler(internalSerialQueueName: "interval")
    var ticks = 0
    init(disposedAtOnce: Bool = false) {
        let subscription = RxObservable<Int>.interval(.seconds(3600), scheduler: scheduler).subscribe(onNext: { self.ticks = $0 })
        if disposedAtOnce { subscription.dispose() }
    }
}

/// `subscribe(onNext: validate)`: a method reference captures self.
final class RxMethodReferenceViewModel {
    let disposeBag = RxDisposeBag()
    let input = RxPublishSubject<String>()
    var valid = false
    init() {
        input.subscribe(onNext: validate).disposed(by: disposeBag)
    }
    func validate(_ text: String) { valid = !text.isEmpty }
}

final class RxWeakSelfViewModel {
    let disposeBag = RxDisposeBag()
    let source = RxPublishSubject<Int>()
    var total = 0
    init(source: RxObservable<Int>) {
        source.map { $0 * 2 }.subscribe(onNext: { [weak self] in self?.total += $0 }).disposed(by: disposeBag)
    }
}

final class RxSubscribeWithViewModel {
    let disposeBag = RxDisposeBag()
    let title = RxBehaviorRelay(value: "")
    var shown = ""
    init() {
        title.asObservable().subscribe(with: self) { owner, value in owner.shown = value }.disposed(by: disposeBag)
    }
}

final class RxUnownedViewModel {
    let disposeBag = RxDisposeBag()
    let taps = RxPublishSubject<Int>()
    var count = 0
    init() {
        taps.subscribe(onNext: { [unowned self] in self.count += $0 }).disposed(by: disposeBag)
    }
}

/// A strong capture, in a bag that the view model does not own and that is emptied.
final class RxDisposedViewModel {
    let taps = RxPublishSubject<Int>()
    var count = 0
    init() {
        var bag: RxDisposeBag? = RxDisposeBag()
        taps.subscribe(onNext: { self.count += $0 }).disposed(by: bag!)
        bag = nil
    }
}

@Suite("RxSwift-shaped leaks")
struct ReactiveShapeTests {
    @Test func subscriptionKeptInItsOwnDisposeBag() {
        let service = RxPublishSubject<Int>()
        let report = findRetainPath(to: RxBagViewModel(source: service))
        #expect(report.isProven)
        #expect(report.origin == .cycle)
        #expect(report.readable == "RxBagViewModel.disposeBag → RxDisposeBag.disposables[0] → RxBinaryDisposable.disposable1 → "
            + "RxSinkDisposer.sink → RxMapSink<Int, RxAnonymousObserver<Int>>.observer → RxAnonymousObserver<Int>.eventHandler (closure) "
            + "→ captures RxBagViewModel")
        #expect(report.steps?.map(\.kind) == [.strong, .collection, .strong, .strong, .strong, .closure])
        #expect(report.steps?.allSatisfy(\.isProven) == true)
    }

    @Test func relaySubscribedWithAStrongCapture() {
        let report = findRetainPath(to: RxRelayViewModel())
        #expect(report.isProven)
        #expect(report.readable == "RxRelayViewModel.title → RxBehaviorRelay<String>.subject → RxBehaviorSubject<String>.observers._value0 "
            + "(closure) → captures RxAnonymousObserver<String>.eventHandler (closure) → captures RxRelayViewModel")
    }

    @Test func subjectSubscribedWithTheDisposableDropped() {
        let report = findRetainPath(to: RxSubjectViewModel())
        #expect(report.isProven)
        #expect(report.readable == "RxSubjectViewModel.taps → RxPublishSubject<Int>.observers._value0 (closure) → captures "
            + "RxAnonymousObserver<Int>.eventHandler (closure) → captures RxSubjectViewModel")
    }

    @Test func methodReferenceCapturesSelf() {
        let report = findRetainPath(to: RxMethodReferenceViewModel())
        #expect(report.isProven)
        #expect(report.readable == "RxMethodReferenceViewModel.input → RxPublishSubject<String>.observers._value0 (closure) → captures "
            + "RxAnonymousObserver<String>.eventHandler (closure) → captures method reference made in RxMethodReferenceViewModel.init() "
            + "→ captures RxMethodReferenceViewModel")
        #expect(report.steps?.last == RetainPathStep(
            holder: "LeakCheckCorpusTests.RxMethodReferenceViewModel", property: "init()", kind: .methodReference))
        #expect(report.hint?.hasPrefix("a method reference made in RxMethodReferenceViewModel.init() captures it strongly") == true)
    }

    /// Held only by libdispatch's armed timer: the path starts at the timer, on the scheduler's
    /// queue, and goes through the periodic action's captures (the sink) to the observer.
    @Test func intervalOnADispatchQueueScheduler() async {
        let model = RxIntervalViewModel()
        let report = await retainPathOnceArmed(to: model)
        #expect(report.isProven)
        #expect(report.origin == .global)
        #expect(report.readable == #"DispatchSource timer (armed, on queue "interval") → eventHandler (closure) → captures "#
            + "RxTimerSink<RxAnonymousObserver<Int>>.observer → RxAnonymousObserver<Int>.eventHandler (closure) → captures RxIntervalViewModel")
        #expect(report.steps?.map(\.kind) == [.timer, .strong, .closure])
    }

    /// The same subscription disposed: the timer is cancelled and lets everything go (on the
    /// scheduler's queue, a moment later: a loaded machine may take seconds).
    @Test func disposedIntervalIsNotFlagged() async {
        await expectDeallocation(timeout: .seconds(10)) {
            [RxIntervalViewModel(disposedAtOnce: true)]
        }
    }

    @Test(arguments: [
        { RxWeakSelfViewModel(source: RxPublishSubject<Int>()) as AnyObject },
        { RxSubscribeWithViewModel() }, { RxUnownedViewModel() }, { RxDisposedViewModel() },
    ] as [@Sendable () -> AnyObject])
    func cleanSubscriptionsAreNotFlagged(make: @Sendable () -> AnyObject) async {
        let model = make()
        let report = findRetainPath(to: model)
        #expect(report.steps == nil, "\(type(of: model)): \(report.readable)")
        #expect(report.suspects.isEmpty, "\(type(of: model)): \(report.suspects)")
        await expectDeallocation(timeout: .seconds(2)) { [make()] }
    }
}
