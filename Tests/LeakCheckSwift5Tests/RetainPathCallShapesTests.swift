// Retain paths and the watcher as Swift 5 code calls them: no Sendable annotations needed.
import LeakCheck
import Testing

final class Swift5Screen {
    var presenter: Swift5Presenter?
}

final class Swift5Presenter {
    var screen: Swift5Screen?
}

@Suite("Retain path call shapes, Swift 5 mode")
struct RetainPathCallShapesTests {
    @Test func findAndWatch() {
        let screen = Swift5Screen()
        let presenter = Swift5Presenter()
        screen.presenter = presenter
        presenter.screen = screen

        let report = findRetainPath(to: screen)
        #expect(report.readable == "Swift5Screen.presenter → Swift5Presenter.screen → Swift5Screen")

        let cache = [presenter]
        var configuration = LeakWatcher.Configuration(strikes: 1, report: nil)
        configuration.retainPathRoots = { [cache] }
        let watcher = LeakWatcher(configuration: configuration, onLeak: { finding in _ = finding.retainPath })
        watcher.watch(screen, name: "Screen")
        #expect(watcher.checkNow().compactMap { $0.record.fingerprint } == [report.fingerprint])
        presenter.screen = nil
    }
}
