import LeakCheck
import LeakCheckUIKit
import SampleScreens
import Testing
#if canImport(UIKit)
import UIKit
#endif

/// Each view-controller lifecycle on a real screen, and a deliberate leak caught at its line.
/// On iOS these run hosted by SampleApp on a simulator; on macOS under `swift test`.
@MainActor @Suite(.serialized) struct ScreenLifecycleTests {
    @Test func loadView() async {
        await expectDeallocation(.loadView { screen in #expect(screen.isViewLoaded) }) { ProfileViewController() }
    }

    @Test func presentWithAnInteraction() async {
        await expectDeallocation(.present { screen in
            #expect(screen.didAppear, "the interaction runs once the screen has appeared")
            #if canImport(UIKit)
            screen.saveButton.sendActions(for: .touchUpInside)
            #else
            screen.model.save()
            #endif
            #expect(screen.model.saves == 1)
        }) { ProfileViewController() }
    }

    #if canImport(UIKit)
    @Test func push() async {
        await expectDeallocation(.push()) { SettingsViewController() }
    }
    #endif

    @Test func hostingASwiftUIView() async {
        await expectDeallocation(.hosting { model in ProfileView(model: model) } interaction: { model in model.save() }) {
            ProfileModel()
        }
    }

    /// The deliberate leak: caught, at this test's line, as a leak of LeakyViewController.
    @Test func aLeakingScreenIsCaughtAtThisLine() async {
        let line = #line + 2
        await withKnownIssue {
            await expectDeallocation(.present(), timeout: .milliseconds(300), gracePeriod: .zero) { LeakyViewController() }
        } matching: { issue in
            issue.sourceLocation?.line == line && "\(issue)".contains("LeakyViewController was not deallocated")
        }
    }

    @Test func aLeakingSwiftUIModelIsCaught() async {
        await withKnownIssue {
            await expectDeallocation(.hosting { _ in ProfileView(model: ProfileModel()) }, timeout: .milliseconds(300), gracePeriod: .zero) {
                LeakyModel()
            }
        } matching: { issue in
            "\(issue)".contains("LeakyModel was not deallocated")
        }
    }

    /// An interaction that throws is the check's error, not a leak; the screen still goes down.
    @Test func anInteractionThatThrowsIsAnError() async {
        struct Broken: Error {}
        await withKnownIssue {
            await expectDeallocation(.present { _ in throw Broken() }) { ProfileViewController() }
        } matching: { issue in
            "\(issue)".contains("threw") && !"\(issue)".contains("not deallocated")
        }
    }
}

#if canImport(UIKit)
/// The runtime watcher in the test host: a leaking controller, once dismissed, is found.
@MainActor @Suite(.serialized) struct ViewControllerLeakWatcherTests {
    @Test func aDismissedLeakingControllerIsFound() async throws {
        var configuration = LeakWatcher.Configuration(interval: 60, strikes: 2)
        configuration.report = nil
        #expect(ViewControllerLeakWatcher.start(configuration: configuration, onDevice: true, onLeak: nil))
        defer { ViewControllerLeakWatcher.stop() }
        let watcher = try #require(ViewControllerLeakWatcher.watcher)
        // Present and dismiss it (the lifecycle's own check is not the point here).
        await withKnownIssue {
            await expectDeallocation(.present(), timeout: .milliseconds(100), gracePeriod: .zero) { LeakyViewController() }
        }
        watcher.checkNow()
        let findings = watcher.checkNow()
        #expect(findings.contains { $0.record.type.hasSuffix("LeakyViewController") })
        #expect(!findings.contains { $0.record.type.hasSuffix("UIViewController") }, "system classes are not watched")
    }
}
#endif
