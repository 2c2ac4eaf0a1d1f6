import Dispatch
import Foundation
@testable import LeakCheck
@testable import LeakRuntime
import LeakReport
import Testing

// Leaks found by a check, searched from what the check knows: the other objects of a group,
// the container a service came from. The failure message prints the path the report carries.

func capturingRecords(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void
) async rethrows -> [CheckRecord] {
    let capture = CheckCapture()
    try await ReportSink.$capture.withValue(capture) { try await body() }
    return capture.all
}

let briefly = Duration.milliseconds(20)

/// A container like Swinject's: factories, and a container scope that keeps what it resolved.
final class ServiceContainer: DependencyResolving {
    private var factories: [String: () -> Any] = [:]
    private var scoped: Set<String> = []
    var resolvedInScope: [String: Any] = [:]

    func register<Service>(_ service: Service.Type, inContainerScope: Bool = false, factory: @escaping () -> Service) {
        factories[String(describing: service)] = factory
        if inContainerScope { scoped.insert(String(describing: service)) }
    }

    func resolve<Service>(_ service: Service.Type) -> Service? {
        let key = String(describing: service)
        if let kept = resolvedInScope[key] as? Service { return kept }
        guard let made = factories[key]?() as? Service else { return nil }
        if scoped.contains(key) { resolvedInScope[key] = made }
        return made
    }
}

final class HintedSession {}
nonisolated(unsafe) var hintedSessions: [HintedSession] = []

/// A possible path (no hint): a QoS handler's block is not read by its layout.
enum QoSHeartbeatHolder {
    static func make() -> QoSHeartbeat {
        let heartbeat = QoSHeartbeat()
        // Weakly: a block asyncAfter keeps holding the heartbeat would be a proven path to it.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { [weak heartbeat] in heartbeat?.timer?.cancel() }
        return heartbeat
    }
}

protocol APIClient: AnyObject {}
final class LiveAPIClient: APIClient {}

/// A coordinator tree: the parent holds its children, a child holds its parent back strongly
/// (the bug), and the view model it shows has only `[weak self]` closures.
final class AppCoordinator {
    var children: [ProfileCoordinator] = []
}

final class ProfileCoordinator {
    var parent: AppCoordinator?
    let viewModel = CoordinatedViewModel()
}

final class CoordinatedViewModel {
    var onClose: (() -> Void)?
    var closed = 0
    init() { onClose = { [weak self] in self?.closed += 1 } }
}

@Suite("Leaks found by a check")
struct CheckShapeTests {
    @Test func containerScopeKeepsTheService() async {
        let container = ServiceContainer()
        container.register(APIClient.self, inContainerScope: true) { LiveAPIClient() }
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(of: APIClient.self, resolvedFrom: container, timeout: briefly, gracePeriod: .zero)
            } matching: { issue in
                "\(issue)".contains("What holds it: ServiceContainer.resolvedInScope[\"APIClient\"] → LiveAPIClient")
            }
        }
        #expect(records.first?.retainPath == [
            RetainPathStep(holder: "LeakCheckCorpusTests.ServiceContainer", property: "resolvedInScope[\"APIClient\"]", kind: .collection),
        ])
        #expect(records.first?.retainPath.map { RetainPathStep.readable($0, leakedType: records[0].type) }
            == "ServiceContainer.resolvedInScope[\"APIClient\"] → LiveAPIClient")
    }

    @Test func hintFollowsTheProvenPath() async {
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: briefly, gracePeriod: .zero) { ProfileViewModel() }
            } matching: { issue in
                "\(issue)".contains("To release it: ProfileViewModel.onDone is a closure that captures it strongly: capture it weakly ([weak self]), or set onDone to nil when it is done.")
                    && !"\(issue)".contains("What usually keeps an object alive")
            }
        }
        #expect(records.count == 1)
    }

    /// Each proven path's hint names what its kind calls for; none says "closure" unless the
    /// path goes through one.
    @Test func hintsFollowThePathKind() async {
        let session = HintedSession()
        hintedSessions = [session]
        defer { hintedSessions = [] }
        #expect(findRetainPath(to: session, limits: .unhurried).hint
            == "the global hintedSessions keeps it: remove it from there when it is done, or keep it weakly.")
        #expect(findRetainPath(to: ProfileViewModel(), limits: .unhurried).hint?.hasPrefix("ProfileViewModel.onDone is a closure that captures it strongly") == true)
        let heartbeat = Heartbeat()
        defer { heartbeat.timer?.cancel() }
        #expect(findRetainPath(to: heartbeat, limits: .unhurried).hint?.hasPrefix("a dispatch source's handler captures it: cancel the source") == true)
        let ticker = Ticker()
        defer { ticker.timer?.invalidate() }
        #expect(findRetainPath(to: ticker, limits: .unhurried).hint?.hasPrefix("a Timer's block captures it: invalidate the timer") == true)
        let poller = FeedPoller()
        poller.start()
        defer { poller.task?.cancel() }
        try? await Task.sleep(for: .milliseconds(30))
        #expect(findRetainPath(to: poller, limits: .unhurried).hint?.hasPrefix("the task in FeedPoller.task captures it and is still running") == true)
        let observer = SettingsObserver(center: .default, name: "LeakCheckCorpus.hinted")
        defer { observer.token.map(NotificationCenter.default.removeObserver) }
        #expect(findRetainPath(to: observer, limits: .unhurried).hint?.hasPrefix("a NotificationCenter observer's block captures it: remove the observer") == true)
        let app = AppCoordinator(), profile = ProfileCoordinator()
        profile.parent = app
        app.children = [profile]
        defer { profile.parent = nil }
        #expect(findRetainPath(to: app, limits: .unhurried).hint?.hasPrefix("the references on this path form a cycle: make one of them weak") == true)
        #expect(findRetainPath(to: profile.viewModel, roots: [profile]).hint?.hasPrefix("ProfileCoordinator keeps it") == true)
        #expect(findRetainPath(to: QoSHeartbeatHolder.make(), limits: .unhurried).hint == nil)
    }

    @Test func coordinatorTree() async {
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: briefly, gracePeriod: .zero) { () -> [AnyObject] in
                    let app = AppCoordinator()
                    let profile = ProfileCoordinator()
                    profile.parent = app
                    app.children = [profile]
                    return [app, profile, profile.viewModel]
                }
            } matching: { issue in
                "\(issue)".contains("What holds LeakCheckCorpusTests.CoordinatedViewModel: ProfileCoordinator.viewModel → CoordinatedViewModel")
                    && "\(issue)".contains("To release it: ProfileCoordinator keeps it, and ProfileCoordinator is alive")
                    && "\(issue)".contains("To release it: the references on this path form a cycle")
                    && !"\(issue)".contains("is a closure") && !"\(issue)".contains("weak self")
            }
        }
        let paths = records.map { record in record.retainPath.map { RetainPathStep.readable($0, leakedType: record.type) } }
        #expect(paths == [
            "AppCoordinator.children[0] → ProfileCoordinator.parent → AppCoordinator",
            "ProfileCoordinator.parent → AppCoordinator.children[0] → ProfileCoordinator",
            "ProfileCoordinator.viewModel → CoordinatedViewModel",
        ])
    }

    @Test func failureMessageAndReportSayTheSamePath() async {
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: briefly, gracePeriod: .zero) { ProfileViewModel() }
            } matching: { issue in
                "\(issue)".contains("What holds it: ProfileViewModel.onDone (closure) → captures ProfileViewModel")
            }
        }
        let record = records.first
        #expect(record?.retainPath.map { RetainPathStep.readable($0, leakedType: record!.type) }
            == "ProfileViewModel.onDone (closure) → captures ProfileViewModel")
        #expect(record?.fingerprint == findRetainPath(to: ProfileViewModel()).fingerprint)
    }

    @Test func aPossiblePathIsInTheMessageAndTheReportMarkedPossible() async {
        var kept: QoSHeartbeat?
        let records = await capturingRecords {
            await withKnownIssue {
                await expectDeallocation(timeout: briefly, gracePeriod: .zero) { () -> QoSHeartbeat in
                    let heartbeat = QoSHeartbeat()
                    kept = heartbeat
                    return heartbeat
                }
            } matching: { issue in
                "\(issue)".contains("What holds it: QoSHeartbeat.timer (closure) → captures QoSHeartbeat (possible: ")
                    && "\(issue)".contains("What usually keeps an object alive")
            }
        }
        kept?.timer?.cancel()
        let record = records.first
        #expect(record?.retainPath == [
            RetainPathStep(holder: "LeakCheckCorpusTests.QoSHeartbeat", property: "timer", kind: .closure, isPossible: true),
        ])
        #expect(record?.retainPath.map { RetainPathStep.readable($0, leakedType: record!.type) }
            == "QoSHeartbeat.timer (closure) → captures QoSHeartbeat (possible: QoSHeartbeat.timer is not proven to hold it strongly)")
        #expect(record?.fingerprint?.count == 16)
    }
}
