import Foundation
@testable import LeakStore
import Testing

/// What the store remembers of live tokens (`LeakStore.rememberedToken`), and what it never does.
@Suite("Remembered tokens")
struct TokenMemoryTests {
    static let live = TokenMemory.Live(id: 1, project: "app", scope: .write)

    @Test(arguments: TestEngine.all)
    func onlyALiveVerdictIsRememberedAndARevokeForgetsIt(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        let issued = try store.createProject("app")
        #expect(store.rememberedToken(issued.secret) == nil, "not before the database said so")
        #expect(try store.verifyToken("lh_\(issued.id)_" + String(repeating: "0", count: 64)) == .unknown)
        #expect(store.rememberedToken("lh_\(issued.id)_" + String(repeating: "0", count: 64)) == nil)
        let verdict = try store.verifyToken(issued.secret)
        #expect(verdict == .valid(id: issued.id, project: "app", scope: .write))
        #expect(store.rememberedToken(issued.secret) == verdict)
        try store.revokeToken(id: issued.id)
        #expect(store.rememberedToken(issued.secret) == nil)
        #expect(try store.verifyToken(issued.secret) == .revoked(id: issued.id))
        #expect(store.rememberedToken(issued.secret) == nil)
    }

    /// Revoked through another handle on the same database: remembered until this store reads the
    /// token again, which forgets it.
    @Test(arguments: TestEngine.all)
    func aRevokeElsewhereIsSeenAtTheNextVerify(_ engine: TestEngine) throws {
        let database = try TestDatabase(engine)
        let store = try database.open()
        let issued = try store.createProject("app")
        _ = try store.verifyToken(issued.secret)
        try database.open().revokeToken(id: issued.id)
        #expect(store.rememberedToken(issued.secret) != nil)
        #expect(try store.verifyToken(issued.secret) == .revoked(id: issued.id))
        #expect(store.rememberedToken(issued.secret) == nil)
    }

    @Test func aVerdictReadBeforeARevokeIsNotKept() {
        let memory = TokenMemory(lifetime: .seconds(60))
        let generation = memory.generation
        memory.forget(id: 1)
        memory.remember(hash: "h", Self.live, generation: generation)
        #expect(memory.recall(hash: "h") == nil)
        memory.remember(hash: "h", Self.live, generation: memory.generation)
        #expect(memory.recall(hash: "h") == Self.live)
    }

    @Test func anEntryExpires() {
        let memory = TokenMemory(lifetime: .milliseconds(50))
        memory.remember(hash: "h", Self.live, generation: memory.generation)
        #expect(memory.recall(hash: "h") == Self.live)
        usleep(80_000)
        #expect(memory.recall(hash: "h") == nil)
    }

    @Test func aFullMemoryStaysWithinItsCapacity() {
        let memory = TokenMemory(lifetime: .seconds(60), capacity: 4)
        for index in 0..<10 {
            memory.remember(hash: "h\(index)", .init(id: Int64(index), project: "app", scope: .write), generation: memory.generation)
            #expect((0...index).filter { memory.recall(hash: "h\($0)") != nil }.count <= 4)
            #expect(memory.recall(hash: "h\(index)") != nil, "the newest is kept")
        }
    }
}
