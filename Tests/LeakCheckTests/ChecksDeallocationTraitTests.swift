import Foundation
import LeakReport
import Testing
@testable import LeakCheck
@testable import LeakRuntime

/// Trackers seen by trait-scoped tests, kept alive so that no address is reused: each test
/// case must get its own.
let trackersSeen = Locked<[DeallocationTracker]>([])

/// True when the current test runs under a tracker no other test case had.
private func recordTracker() -> Bool {
    guard let tracker = DeallocationTracker.current else { return false }
    return trackersSeen.withLock { seen in
        defer { seen.append(tracker) }
        return !seen.contains { $0 === tracker }
    }
}

@Suite struct ChecksDeallocationTraitTests {
    @Test(.checksDeallocation) func trackedCleanObjectPasses() async {
        let object = trackForDeallocation(CleanObject())
        #expect(DeallocationTracker.current != nil)
        _ = object
    }

    @Test(.checksDeallocation(timeout: .milliseconds(250), gracePeriod: .milliseconds(50)))
    func traitTimeoutsReachExpectDeallocation() async {
        let records = await capturingRecords {
            await expectDeallocation { CleanObject() }
            await expectDeallocation(timeout: .milliseconds(40)) { CleanObject() }
        }
        #expect(records.map(\.timeoutMs) == [250, 40])
    }

    @Test(.checksDeallocation, arguments: 1...3)
    func parameterisedCasesEachGetATracker(count: Int) async {
        #expect(recordTracker())
        let parents = (0..<count).map { _ in trackForDeallocation(Parent(childCount: 0)) }
        #expect(parents.count == count)
    }

    @Test func trackedLeakFailsAtTheTrackCall() async {
        let tracker = DeallocationTracker()
        let keeper = UncheckedBox(Parent(childCount: 0))
        var trackLine = 0
        let records = await capturingRecords {
            DeallocationTimeouts.$current.withValue(DeallocationTimeouts(timeout: short, gracePeriod: .zero)) {
                DeallocationTracker.$current.withValue(tracker) {
                    trackLine = #line + 1
                    let child = trackForDeallocation(Child())
                    keeper.value.children.append(child)
                    trackForDeallocation(CleanObject())
                }
            }
            let line = trackLine
            await withKnownIssue {
                await tracker.verifyAll()
            } matching: { issue in
                issue.sourceLocation?.line == line && "\(issue)".contains("LeakCheckTests.Child was not deallocated")
            }
        }
        #expect(records.map(\.outcome) == [.leaked, .deallocated])
        #expect(records.map(\.type) == ["LeakCheckTests.Child", "LeakCheckTests.CleanObject"])
    }

    @Test func theTraitItselfChecksAfterTheTest() async throws {
        let keeper = UncheckedBox(Parent(childCount: 0))
        let trait = DeallocationCheckTrait.checksDeallocation(timeout: short, gracePeriod: .zero)
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                keeper.value.children.append(trackForDeallocation(Child()))
            }
        } matching: { "\($0)".contains("LeakCheckTests.Child was not deallocated") }
    }

    @Test func trackingWithoutTheTraitSaysHowToAddIt() {
        withKnownIssue {
            _ = trackForDeallocation(CleanObject())
        } matching: { issue in
            "\(issue)".contains("@Test(.checksDeallocation)") && "\(issue)".contains("@Suite(.checksDeallocation)")
        }
    }
}

@Suite(.checksDeallocation(timeout: .milliseconds(700)))
struct SuiteTraitTests {
    @Test func suiteTraitAppliesToItsTests() async {
        #expect(recordTracker())
        let records = await capturingRecords { await expectDeallocation { CleanObject() } }
        #expect(records.map(\.timeoutMs) == [700])
        _ = trackForDeallocation(CleanObject())
    }

    @Suite struct Nested {
        @Test func appliesRecursively() {
            #expect(recordTracker())
            _ = trackForDeallocation(CleanObject())
        }

        @Test(.checksDeallocation(timeout: .milliseconds(90)))
        func testTraitWinsOverSuiteTrait() async {
            let records = await capturingRecords { await expectDeallocation { CleanObject() } }
            #expect(records.map(\.timeoutMs) == [90])
        }
    }
}
