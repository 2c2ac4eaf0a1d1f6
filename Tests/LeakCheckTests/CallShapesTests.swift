// The call shapes users write, exactly as the README shows them. This file is compiled twice:
// here in Swift 6 language mode and, through a symlink, in LeakCheckSwift5Tests in Swift 5 mode.
import Foundation
import LeakCheck
import Testing
import XCTest

final class ShapeAPI: ShapeAPIManaging {}
protocol ShapeAPIManaging: AnyObject {}
final class ShapeProfileViewModel { let api: ShapeAPI; init(api: ShapeAPI) { self.api = api } }
final class ShapeFoo {}
final class ShapeLoader { func load() async {} }
@MainActor final class ShapeMainActorOwner { func start() {} }
final class ShapeOwner { func start() {} }

final class ShapeCache: @unchecked Sendable {
    static let shared = ShapeCache()
    private let lock = NSLock()
    private var items: [ObjectIdentifier: AnyObject] = [:]
    func insert(_ item: AnyObject) { lock.withLock { items[ObjectIdentifier(item)] = item } }
    func remove(_ item: AnyObject) { lock.withLock { items[ObjectIdentifier(item)] = nil } }
}

final class ShapeCached {
    init() { ShapeCache.shared.insert(self) }
}

struct ShapeModule { let view: ShapeFoo; let presenter: ShapeFoo; let interactor: ShapeFoo }
struct ShapeFactory { func makeAndExpose() -> ShapeModule { ShapeModule(view: ShapeFoo(), presenter: ShapeFoo(), interactor: ShapeFoo()) } }

final class ShapeContainer: DependencyResolving {
    func resolve<Service>(_ type: Service.Type) -> Service? { ShapeAPI() as? Service }
}

@Test func viewModel() async { await expectDeallocation { ShapeProfileViewModel(api: ShapeAPI()) } }

@Suite struct NonisolatedCallShapes {
    let factory = ShapeFactory()
    let container = ShapeContainer()

    @Test func everyShape() async {
        await expectDeallocation(timeout: .milliseconds(300)) { ShapeFoo() }
        await expectDeallocation(timeout: .milliseconds(100), gracePeriod: .seconds(3)) { ShapeFoo() }
        await expectDeallocation(.custom { loader in await loader.load() }) { ShapeLoader() }
        await expectDeallocation(.custom { owner in owner.start() }, timeout: .milliseconds(300)) { ShapeOwner() }
        var cached: ShapeCached? = nil
        await expectDeallocation(afterRelease: { if let cached { ShapeCache.shared.remove(cached) }; cached = nil }) {
            let made = ShapeCached(); cached = made; return made
        }
        await expectDeallocation { () -> [AnyObject] in
            let m = factory.makeAndExpose(); return [m.view, m.presenter, m.interactor]
        }
        await expectDeallocation(of: ShapeAPIManaging.self, resolvedFrom: container)
        await expectDeallocation(timeout: .milliseconds(300), attempts: 5) { ShapeFoo() }
        await expectDeallocation(.custom { loader in await loader.load() }, attempts: 1) { ShapeLoader() }
        await expectDeallocation(attempts: 2) { () -> [AnyObject] in [ShapeFoo(), ShapeFoo()] }
        await expectDeallocation(of: ShapeAPIManaging.self, resolvedFrom: container, attempts: 4)
    }

    @Test(.checksDeallocation) func loads() async { let vm = trackForDeallocation(ShapeLoader()); await vm.load() }
    @Test(.checksDeallocation(attempts: 5)) func confirmsInFive() async { await expectDeallocation { ShapeFoo() } }
}

@MainActor @Suite struct MainActorCallShapes {
    let factory = ShapeFactory()

    @Test func everyShape() async {
        await expectDeallocation { ShapeMainActorOwner() }
        await expectDeallocation(.custom { owner in owner.start() }, attempts: 2) { ShapeMainActorOwner() }
        await expectDeallocation(timeout: .milliseconds(300)) { ShapeFoo() }
        await expectDeallocation(.custom { owner in owner.start() }, timeout: .milliseconds(300)) { ShapeMainActorOwner() }
        await expectDeallocation(.custom { loader in await loader.load() }) { ShapeLoader() }
        await expectDeallocation { () -> [AnyObject] in
            let m = factory.makeAndExpose(); return [m.view, m.presenter, m.interactor]
        }
        await expectDeallocation(of: ShapeAPIManaging.self, resolvedFrom: ShapeContainer())
    }

    @Test(.checksDeallocation) func loads() async { let owner = trackForDeallocation(ShapeMainActorOwner()); owner.start() }
}

@Suite(.checksDeallocation) struct ShapeProfileTests {
    @Test func tracked() { _ = trackForDeallocation(ShapeFoo()) }
}

final class CallShapesXCTests: XCTestCase {
    func testA() async { await expectDeallocation { ShapeFoo() } }
    func testB() { assertDeallocation { ShapeFoo() } }
    func testC() { let sut = trackForDeallocation(ShapeFoo()); _ = sut }
    @MainActor func testD() async { await expectDeallocation { ShapeMainActorOwner() } }
    func testE() async { await expectDeallocation(attempts: 5) { ShapeFoo() } }
    func testF() { assertDeallocation(timeout: .milliseconds(300), attempts: 2) { ShapeFoo() } }
}

final class CallShapesConfiguredXCTests: XCTestCase, DeallocationCheckConfiguring {
    var deallocationTimeouts: DeallocationTimeouts { .init(timeout: .milliseconds(300)) }
    var deallocationAttempts: Int? { 5 }
    func testA() async { await expectDeallocation { ShapeFoo() } }
}
