import SampleScreens
import SwiftUI

/// The host app of the iOS tests: present and push need a window scene, which only an app has.
@main
struct SampleApp: App {
    var body: some Scene {
        WindowGroup {
            ProfileView(model: ProfileModel())
        }
    }
}
