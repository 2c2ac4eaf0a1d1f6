import Foundation
import Testing

/// LeakRuntime, LeakRuntimeUIKit, LeakCheck, LeakReport and LeakCheckUIKit go into apps' test targets, which build for the
/// package's floor (macOS 13 / iOS 16): no API above it may appear in their sources. Linux
/// cannot compile for Apple platforms, so this reads the sources instead.
@Suite struct AvailabilityFloorTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let guardedTargets = ["LeakRuntime", "LeakRuntimeUIKit", "LeakCheck", "LeakReport", "LeakCheckUIKit"]

    @Test func guardedTargetsUseNothingAboveTheFloor() throws {
        let folders = Self.guardedTargets.map { Self.root.appendingPathComponent("Sources/\($0)") }
        for folder in folders {
            #expect(FileManager.default.fileExists(atPath: folder.path), "\(folder.path) is missing: update guardedTargets")
        }
        let violations = try AvailabilityScanner().violations(inFolders: folders, relativeTo: Self.root)
        #expect(violations.isEmpty, "\(violations.map(\.description).joined(separator: "\n"))")
    }

    @Test func aPlantedViolationIsFound() {
        let source = """
            import Foundation
            import Synchronization

            final class Box: Sendable {
                let state = Mutex<Int>(0)
            }
            """
        let found = AvailabilityScanner().violations(in: source, file: "Planted.swift")
        #expect(found.map(\.rule) == ["Synchronization", "Mutex"])
        #expect(found.map(\.line) == [2, 5])
        #expect(found.first?.description.contains("Planted.swift:2: uses Synchronization") == true)
    }

    @Test func commentsAndStringTextAreNotCode() {
        let source = #"""
            // Synchronization.Mutex would need macOS 15.
            /* A Mutex /* nested: Atomic */ still a comment: OSAllocatedUnfairLock */
            let a = "a Mutex in a string, with an escaped \" quote: Atomic"
            let b = """
                multi-line Mutex "quoted" Atomic
                """
            let c = #"raw Mutex \(Atomic) "quoted" "#
            let d = MutexLike()
            """#
        #expect(AvailabilityScanner().violations(in: source, file: "Clean.swift").isEmpty)
    }

    @Test func interpolationsAndBackticksAreCode() {
        let source = ##"""
            let a = "count: \(Mutex<Int>(0).withLock { $0 })"
            let b = #"raw: \#(Atomic<Int>(1))"#
            let c = `Mutex`<Int>(2)
            let d = """
                \("nested \(OSAllocatedUnfairLock())")
                """
            """##
        let found = AvailabilityScanner().violations(in: source, file: "Hidden.swift")
        #expect(found.map(\.rule) == ["Mutex", "Atomic", "Mutex", "OSAllocatedUnfairLock"])
        #expect(found.map(\.line) == [1, 2, 3, 5])
    }

    @Test func multiTokenRulesMatchInARow() {
        let found = AvailabilityScanner().violations(in: "actor A { isolated deinit {} }\nlet isolated = 1; func deinitialize() {}", file: "A.swift")
        #expect(found.map(\.rule) == ["isolated deinit"])
    }

    @Test func linesCountInsideCommentsAndStrings() {
        let source = "/*\n\n*/\nlet s = \"\"\"\n\n\"\"\"\nlet m = Mutex(0)"
        #expect(AvailabilityScanner().violations(in: source, file: "L.swift").map(\.line) == [7])
    }
}
