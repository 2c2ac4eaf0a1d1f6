import Foundation
import LeakReport
import Testing
@testable import LeakCheck
@testable import LeakRuntime

/// Runs `body` with report lines captured in memory and returns them.
func capturingRecords(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
) async rethrows -> [CheckRecord] {
    let capture = CheckCapture()
    try await ReportSink.$capture.withValue(capture) { try await body() }
    return capture.all
}

let short = Duration.milliseconds(30)

@Suite struct ExpectDeallocationTests {
    @Test func cleanObjectPassesAndIsReported() async {
        let records = await capturingRecords {
            await expectDeallocation { CleanObject() }
        }
        #expect(records.count == 1)
        let record = try! #require(records.first)
        #expect(record.outcome == .deallocated)
        #expect(record.type == "LeakCheckTests.CleanObject")
        #expect(record.scenario == "ExpectDeallocationTests/cleanObjectPassesAndIsReported()")
        #expect(record.file == "Tests/LeakCheckTests/ExpectDeallocationTests.swift")
        #expect(record.timeoutMs == 2000)
        #expect(record.waitedMs < 2000)
    }

    enum LeakingShape: CaseIterable {
        case closureCapturingSelf, strongDelegate, parentChildArray

        func make() -> AnyObject {
            switch self {
            case .closureCapturingSelf: SelfCapturingClosure()
            case .strongDelegate: StrongDelegateOwner()
            case .parentChildArray: Parent(childCount: 3)
            }
        }

        /// What the failure's hint must say, following the path's kind.
        var hint: String {
            switch self {
            case .closureCapturingSelf: "capture it weakly ([weak self])"
            case .strongDelegate, .parentChildArray: "form a cycle: make one of them weak"
            }
        }

        /// What the failure must say holds the object.
        var explanation: String {
            switch self {
            case .closureCapturingSelf: "SelfCapturingClosure.onDone (closure) → captures SelfCapturingClosure"
            case .strongDelegate: "StrongDelegateOwner.delegate → StrongDelegate.owner → StrongDelegateOwner"
            case .parentChildArray: "Parent.children[0] → Child.parent → Parent"
            }
        }
    }

    @Test(arguments: LeakingShape.allCases)
    func retainCycleFailsAtTheCallersLine(shape: LeakingShape) async {
        let records = await capturingRecords {
            let line = #line; await withKnownIssue { await expectDeallocation(timeout: short, gracePeriod: .zero) { shape.make() } } matching: { issue in
                issue.sourceLocation?.line == line
                    && issue.sourceLocation?.fileName == "ExpectDeallocationTests.swift"
                    && issue.severity == .error
                    && "\(issue)".contains("was not deallocated")
                    && "\(issue)".contains("LeakCheckTests.")
                    && "\(issue)".contains(shape.hint)
                    && "\(issue)".contains("What holds it: ")
                    && "\(issue)".contains(shape.explanation)
            }
        }
        #expect(records.map(\.outcome) == [.leaked])
        #expect(records.first?.fingerprint?.count == 16)
        #expect(records.first?.retainPath?.isEmpty == false)
        #expect((records.first?.waitedMs ?? 0) >= 30)
        #expect(records.first?.file == "Tests/LeakCheckTests/ExpectDeallocationTests.swift")
    }

    /// Alive at the first look (the release comes 300 ms later, far past the 1 ms timeout), gone
    /// within the grace period.
    @Test func lateReleaseIsAWarningNotALeak() async {
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: .milliseconds(1), gracePeriod: .seconds(10)) {
                    ReleasedLater.make(releasedAfter: .milliseconds(300))
                }
            } matching: { issue in
                issue.severity == .warning && "\(issue)".contains("deallocated late")
            }
        }
        #expect(records.map(\.outcome) == [.lateRelease])
        #expect((records.first?.waitedMs ?? 0) >= 1)
    }

    @Test func lifecycleRunsBeforeRelease() async {
        let records = await capturingRecords {
            await expectDeallocation(.custom { loader in
                await loader.load()
                #expect(loader.loaded)
            }) { Loader() }
        }
        #expect(records.map(\.outcome) == [.deallocated])
        #expect(records.first?.lifecycle == "custom")
    }

    @Test func errorThrownInLifecycleIsAnErrorNotALeak() async {
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(.custom { loader in try await loader.fail() }, timeout: short) { Loader() }
            } matching: { issue in
                "\(issue)".contains("threw") && "\(issue)".contains("LoaderError") && !"\(issue)".contains("not deallocated")
            }
        }
        #expect(records.map(\.outcome) == [.error])
    }

    @Test func afterReleaseClearsLegitimateHolders() async {
        let cache = Cache()
        let records = await capturingRecords {
            await expectDeallocation(afterRelease: { cache.removeAll() }) { Cached(in: cache) }
        }
        #expect(records.map(\.outcome) == [.deallocated])
    }

    @Test func withoutAfterReleaseTheCacheKeepsItAlive() async {
        let cache = Cache()
        await withKnownIssue {
            await expectDeallocation(timeout: short, gracePeriod: .zero) { Cached(in: cache) }
        } matching: { "\($0)".contains("LeakCheckTests.Cached") }
    }

    @Test func rootsNameWhoElseHoldsIt() async {
        let cache = Cache()
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: short, gracePeriod: .zero, roots: [cache]) { Cached(in: cache) }
            } matching: { issue in
                "\(issue)".contains("What holds it: Cache.items[0] → Cached")
            }
        }
        #expect(records.first?.retainPath?.first?.holder == "LeakCheckTests.Cache")
    }

    @Test func groupListsEachSurvivorByType() async {
        let parent = Parent(childCount: 0)
        let keeper = UncheckedBox(parent)
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: short, gracePeriod: .zero) { () -> [AnyObject] in
                    let child = Child()
                    keeper.value.children.append(child)
                    return [CleanObject(), child, Loader()]
                }
            } matching: { issue in
                let text = "\(issue)"
                return text.contains("1 of 3 objects") && text.contains("LeakCheckTests.Child")
                    && !text.contains("LeakCheckTests.CleanObject") && !text.contains("LeakCheckTests.Loader")
            }
        }
        #expect(records.map(\.outcome) == [.deallocated, .leaked, .deallocated])
        #expect(records.map(\.type) == ["LeakCheckTests.CleanObject", "LeakCheckTests.Child", "LeakCheckTests.Loader"])
    }

    @Test func builderErrorsAreRethrown() async {
        await #expect(throws: LoaderError.self) {
            try await expectDeallocation { () throws -> CleanObject in throw LoaderError() }
        }
    }

    @Test func resolvedServiceIsChecked() async {
        let container = TestContainer()
        container.factory = { API() }
        let records = await capturingRecords {
            await expectDeallocation(of: APIManaging.self, resolvedFrom: container)
        }
        #expect(records.map(\.outcome) == [.deallocated])
        #expect(records.first?.type == "LeakCheckTests.API")
    }

    @Test func singletonServiceLeaks() async {
        let container = TestContainer()
        container.singleton = API()
        await withKnownIssue {
            await expectDeallocation(of: APIManaging.self, resolvedFrom: container, timeout: short, gracePeriod: .zero)
        } matching: { "\($0)".contains("LeakCheckTests.API was not deallocated") }
    }

    @Test func resolvedValueTypeIsAClearError() async {
        let container = TestContainer()
        container.factory = { ValueAPI() }
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(of: ValueAPI.self, resolvedFrom: container)
            } matching: { "\($0)".contains("a value type") }
        }
        #expect(records.map(\.outcome) == [.error])
    }

    @Test func nothingResolvedIsAClearError() async {
        await withKnownIssue {
            await expectDeallocation(of: APIManaging.self, resolvedFrom: TestContainer())
        } matching: { "\($0)".contains("resolved nothing for LeakCheckTests.APIManaging") }
    }

    @MainActor @Test func worksFromTheMainActor() async {
        let records = await capturingRecords {
            await expectDeallocation { MainActorViewModel() }
            await expectDeallocation(.custom { model in model.start() }, timeout: .milliseconds(300)) { MainActorViewModel() }
        }
        #expect(records.map(\.outcome) == [.deallocated, .deallocated])
    }
}

@MainActor final class MainActorViewModel {
    var started = false
    func start() { started = true }
}
