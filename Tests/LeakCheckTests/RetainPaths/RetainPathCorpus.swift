import Dispatch
import Foundation
import Synchronization

// Shapes that leak, each through one property a retain path must name, and shapes that must not
// be reported as cycles. Every factory returns the object a check would have released.

// MARK: Leaking shapes

// `SelfCapturingClosure` (a closure stored on self that captures self) is in Fixtures.swift.

final class ProfileScreen {
    var presenter: ProfilePresenter?
}

final class ProfilePresenter {
    /// Should be `weak`.
    var delegate: ProfileScreen?
}

func strongDelegate() -> ProfilePresenter {
    let screen = ProfileScreen()
    let presenter = ProfilePresenter()
    screen.presenter = presenter
    presenter.delegate = screen
    return presenter
}

final class MainCoordinator {
    var children: [ChildCoordinator] = []
}

final class ChildCoordinator {
    var parent: MainCoordinator?
}

func parentChildThroughArray() -> ChildCoordinator {
    let main = MainCoordinator()
    main.children.append(ChildCoordinator())  // an innocent sibling first
    let child = ChildCoordinator()
    child.parent = main
    main.children.append(child)
    return child
}

final class ScreenRegistry {
    var screens: [String: RegisteredScreen] = [:]
}

final class RegisteredScreen {
    var registry: ScreenRegistry?
}

func parentChildThroughDictionary() -> RegisteredScreen {
    let registry = ScreenRegistry()
    let screen = RegisteredScreen()
    screen.registry = registry
    registry.screens["profile"] = screen
    return screen
}

enum SessionState {
    case idle
    case active(owner: Session, since: Int)
}

final class Session {
    var state = SessionState.idle
}

func enumPayload() -> Session {
    let session = Session()
    session.state = .active(owner: session, since: 1)
    return session
}

struct WidgetContext {
    var title = "widget"
    var owner: Widget?
}

final class Widget {
    var context = WidgetContext()
}

func structField() -> Widget {
    let widget = Widget()
    widget.context.owner = widget
    return widget
}

final class TupleHolder {
    var entry: (label: String, item: TupleItem?) = ("none", nil)
    var pair: (Int, TupleItem?) = (0, nil)
}

final class TupleItem {
    var holder: TupleHolder?
}

func tupleElement() -> TupleItem {
    let holder = TupleHolder()
    let item = TupleItem()
    item.holder = holder
    holder.entry = ("main", item)
    return item
}

final class RingA { var next: RingB? }
final class RingB { var next: RingC? }
final class RingC { var next: RingA? }

func threeObjectRing() -> (RingA, RingB, RingC) {
    let a = RingA(), b = RingB(), c = RingC()
    a.next = b
    b.next = c
    c.next = a
    return (a, b, c)
}

class BaseScreen {
    var coordinator: SettingsCoordinator?
}

final class SettingsScreen: BaseScreen {
    var title = "Settings"
}

final class SettingsCoordinator {
    var screen: SettingsScreen?
}

func superclassProperty() -> SettingsScreen {
    let screen = SettingsScreen()
    let coordinator = SettingsCoordinator()
    coordinator.screen = screen
    screen.coordinator = coordinator
    return screen
}

final class LazyClosureHolder {
    var count = 0
    lazy var handler: () -> Void = { self.count += 1 }
}

func lazyClosure() -> LazyClosureHolder {
    let holder = LazyClosureHolder()
    holder.handler()
    return holder
}

final class ImageCache {
    var entries: [CachedImage] = []
}

final class CachedImage {
    var bytes = [UInt8](repeating: 0, count: 4)
}

protocol PlayerDelegate: AnyObject {}

final class Player {
    var delegate: (any PlayerDelegate)?
}

final class PlayerScreen: PlayerDelegate {
    var player = Player()
}

func strongExistentialDelegate() -> PlayerScreen {
    let screen = PlayerScreen()
    screen.player.delegate = screen
    return screen
}

final class GenericBox<Value> {
    var value: Value
    init(_ value: Value) { self.value = value }
}

final class BoxOwner {
    var box: GenericBox<BoxOwner?>?
}

func genericHolder() -> BoxOwner {
    let owner = BoxOwner()
    owner.box = GenericBox(owner)
    return owner
}

/// A custom mirror shows chosen children; the walk reads the stored fields all the same.
final class CustomMirrored: CustomReflectable {
    var other: CustomMirrored?
    var customMirror: Mirror { Mirror(self, children: ["shown": 1]) }
}

final class ChainLink {
    var next: ChainLink?
}

/// A cycle of `length` links; returns its first link.
func chain(length: Int) -> ChainLink {
    let first = ChainLink()
    var last = first
    for _ in 1..<length {
        let link = ChainLink()
        last.next = link
        last = link
    }
    last.next = first
    return first
}

final class SetMember: Hashable {
    var peers: Set<SetMember> = []
    var slots: ContiguousArray<SetMember?> = []
    static func == (a: SetMember, b: SetMember) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

final class GraphNode {
    var edges: [GraphNode] = []
}

/// A `~Copyable` field cannot be copied out to be looked at; the walk reads its words.
final class GuardedState: @unchecked Sendable {
    let guarded = Mutex<[GuardedState]>([])
    var other: GuardedState?
}

final class Poller {
    var task: Task<Void, Never>?
    /// A task that captures nothing and ends at once.
    func start() { task = Task {} }
}

final class Ticker {
    var timer: Timer?
    init() { timer = Timer(timeInterval: 60, repeats: true) { _ in } }
}

final class SourceOwner {
    var source: (any DispatchSourceTimer)?
    init() {
        let source = DispatchSource.makeTimerSource()
        source.activate()
        self.source = source
    }
    func stop() { source?.cancel() }
}

// MARK: Clean shapes

final class WeakDelegateScreen {
    var presenter: WeakDelegatePresenter?
}

final class WeakDelegatePresenter {
    weak var delegate: WeakDelegateScreen?
}

func weakDelegate() -> (WeakDelegateScreen, WeakDelegatePresenter) {
    let screen = WeakDelegateScreen()
    let presenter = WeakDelegatePresenter()
    screen.presenter = presenter
    presenter.delegate = screen
    return (screen, presenter)
}

final class Document {
    var pages: [Page] = []
}

final class Page {
    unowned let document: Document
    unowned(unsafe) let sameDocument: Document
    init(document: Document) {
        self.document = document
        self.sameDocument = document
    }
}

func unownedBackReference() -> Document {
    let document = Document()
    document.pages = [Page(document: document), Page(document: document)]
    return document
}

final class WeakSelfClosure {
    var onDone: (() -> Void)?
    var finished = false
    init() { onDone = { [weak self] in self?.finished = true } }
}

struct WeakLink {
    weak var owner: StructWeakOwner?
}

final class StructWeakOwner {
    var link = WeakLink()
}

func weakStructField() -> StructWeakOwner {
    let owner = StructWeakOwner()
    owner.link.owner = owner
    return owner
}

final class WeakExistentialPlayer {
    weak var delegate: (any PlayerDelegate)?
}

final class WeakExistentialScreen: PlayerDelegate {
    var player = WeakExistentialPlayer()
}

func weakExistentialDelegate() -> WeakExistentialScreen {
    let screen = WeakExistentialScreen()
    screen.player.delegate = screen
    return screen
}
