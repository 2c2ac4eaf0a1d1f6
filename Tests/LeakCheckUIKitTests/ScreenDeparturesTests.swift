import Foundation
import LeakCheck
import LeakReport
import Testing
@testable import LeakCheckUIKit
@testable import LeakRuntimeUIKit

/// A departed screen through a real `LeakWatcher`: what stays alive is reported under the
/// screen's name; the system's objects and what has gone are not.
@Suite struct ScreenDeparturesTests {
    final class KeptController {}
    final class ReleasedView {}

    @Test func whatOutlivesADepartedScreenIsReportedUnderItsName() throws {
        let records = Locked<[CheckRecord]>([])
        var configuration = LeakWatcher.Configuration(interval: 60, strikes: 2)
        configuration.findsRetainPaths = false
        configuration.report = { record in records.withLock { $0.append(record) } }
        let watcher = LeakWatcher(configuration: configuration)
        let departures = ScreenDepartures(
            watcher: watcher, rules: ScreenWatchRules(systemModules: ["Foundation"], systemPrefixes: ["NS"]),
            location: CallerLocation(fileID: "App/AppDelegate.swift", filePath: "/src/App/AppDelegate.swift", line: 12, column: 9))

        let kept = KeptController()
        let system = NSObject()
        var watched = 0
        do {
            let released = ReleasedView()
            watched = departures.watch(ScreenTree(object: kept, children: [
                ScreenTree(object: system, children: [ScreenTree(object: released)]),
            ]))
        }
        #expect(watched == 2, "the controller and the app's view, not the system's")

        #expect(watcher.checkNow().isEmpty, "one check in: async work still gets its chance")
        let findings = watcher.checkNow()
        #expect(findings.map(\.record.type) == ["LeakCheckUIKitTests.ScreenDeparturesTests.KeptController"])
        let record = try #require(records.withLock { $0 }.first)
        #expect(record.scenario == "ViewControllerLeakWatcher/KeptController")
        #expect(record.source == .watcher)
        #expect(record.line == 12)
        withExtendedLifetime((kept, system)) {}
    }
}
