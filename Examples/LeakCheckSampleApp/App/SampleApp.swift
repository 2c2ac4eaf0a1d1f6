import Foundation
import LeakRuntimeUIKit
import SampleScreens
import SwiftUI

/// The host app of the iOS tests: present and push need a window scene, which only an app has.
/// Run by hand, it watches its view controllers for leaks (the watcher linked alone).
@main
struct SampleApp: App {
    init() {
        #if DEBUG
        // Not while it hosts the tests: their deliberate leak is theirs to report.
        if ProcessInfo.processInfo.environment["XCTestConfigurationFilePath"] == nil {
            ViewControllerLeakWatcher.start()
        }
        #endif
    }

    var body: some Scene {
        WindowGroup {
            ProfileView(model: ProfileModel())
        }
    }
}
