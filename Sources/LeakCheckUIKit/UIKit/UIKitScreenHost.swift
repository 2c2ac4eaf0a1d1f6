#if canImport(UIKit) && !os(watchOS)
import Foundation
import UIKit

/// Shows view controllers for the UIKit lifecycles in a test window of its own, over the host
/// app's window scene, and reads their real state: presented and appeared, dismissed, pushed
/// and popped with no transition left running. One host per check.
@MainActor
final class UIKitScreenHost<Controller: UIViewController>: ScreenHost {
    private let animated: Bool
    private var window: UIWindow?
    private var navigation: UINavigationController?

    init(animated: Bool) {
        self.animated = animated
    }

    func show(_ screen: Controller, as presentation: ScreenPresentation) throws {
        switch presentation {
        case .loadView:
            screen.loadViewIfNeeded()
        case .present, .hosting:
            let root = UIViewController()
            try openWindow(root: root, for: screen, presentation)
            root.present(screen, animated: animated)
        case .push:
            let navigation = UINavigationController(rootViewController: UIViewController())
            try openWindow(root: navigation, for: screen, presentation)
            self.navigation = navigation
            navigation.pushViewController(screen, animated: animated)
        }
    }

    func isShown(_ screen: Controller, as presentation: ScreenPresentation) -> Bool {
        switch presentation {
        case .loadView:
            return screen.isViewLoaded
        case .present, .hosting:
            return screen.presentingViewController != nil && !screen.isBeingPresented && screen.viewIfLoaded?.window != nil
        case .push:
            return navigation?.topViewController === screen && navigation?.transitionCoordinator == nil
                && screen.viewIfLoaded?.window != nil
        }
    }

    func hide(_ screen: Controller, as presentation: ScreenPresentation) {
        switch presentation {
        case .loadView:
            break
        case .present, .hosting:
            // From the presenting side: also takes down what the interaction presented on top.
            screen.presentingViewController?.dismiss(animated: animated)
        case .push:
            navigation?.popToRootViewController(animated: animated)
        }
    }

    func isHidden(_ screen: Controller, as presentation: ScreenPresentation) -> Bool {
        switch presentation {
        case .loadView:
            return true
        case .present, .hosting:
            return screen.presentingViewController == nil && !screen.isBeingDismissed && screen.viewIfLoaded?.window == nil
        case .push:
            guard let navigation else { return true }
            return !navigation.viewControllers.contains { $0 === screen } && navigation.transitionCoordinator == nil
                && screen.viewIfLoaded?.window == nil
        }
    }

    func tearDown() {
        window?.isHidden = true
        window?.rootViewController = nil
        window = nil
        navigation = nil
    }

    func nextTurn() async {
        await MainRunLoop.nextTurn()
    }

    /// A key window of our own over the host app's foreground scene, so that neither the app's
    /// own screens nor an earlier test's leftovers are in the way.
    private func openWindow(root: UIViewController, for screen: Controller, _ presentation: ScreenPresentation) throws {
        let typeName = String(reflecting: type(of: screen))
        // Without a host app the tests run in Xcode's agent: there is no UIApplication to ask.
        guard Bundle.main.bundleURL.pathExtension == "app" else {
            throw ScreenLifecycleError.needsHostApp(
                typeName, presentation,
                detail: "the tests run without an app (in \(Bundle.main.bundleURL.lastPathComponent)), so there is no window to show it in")
        }
        let scenes = UIApplication.shared.connectedScenes.compactMap { $0 as? UIWindowScene }
        guard let scene = scenes.first(where: { $0.activationState == .foregroundActive }) ?? scenes.first else {
            throw ScreenLifecycleError.needsHostApp(
                typeName, presentation, detail: "the host app has no window scene connected (is it still launching, or in the background?)")
        }
        let window = UIWindow(windowScene: scene)
        window.rootViewController = root
        window.makeKeyAndVisible()
        self.window = window
    }
}
#endif
