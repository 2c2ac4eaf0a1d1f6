#if canImport(UIKit) && !os(watchOS)
import Foundation
import UIKit

/// Shows view controllers for the UIKit lifecycles in a test window of its own, over the host
/// app's window scene. The window must have appeared before anything is presented or pushed on
/// it; presentation and dismissal are judged from UIKit's own callbacks (the completion of
/// `present` and `dismiss`, the navigation controller's `didShow`), not from polling
/// `isBeingPresented`. The window that was key before is made key again at the end. One host
/// per check.
@MainActor
final class UIKitScreenHost<Controller: UIViewController>: ScreenHost {
    private let animated: Bool
    private var window: UIWindow?
    private var root: TestWindowRoot?
    private var navigation: UINavigationController?
    private let navigationCallbacks = NavigationCallbacks()
    private weak var previousKeyWindow: UIWindow?
    /// Set by `present`'s and `dismiss`'s completion blocks.
    private var presented = false
    private var dismissed = false

    init(animated: Bool) {
        self.animated = animated
    }

    func prepare(_ screen: Controller, as presentation: ScreenPresentation) throws {
        switch presentation {
        case .loadView:
            break
        case .present, .hosting:
            let root = TestWindowRoot()
            try openWindow(root: root, for: screen, presentation)
            self.root = root
        case .push:
            let root = TestWindowRoot()
            let navigation = UINavigationController(rootViewController: root)
            navigation.delegate = navigationCallbacks
            try openWindow(root: navigation, for: screen, presentation)
            self.root = root
            self.navigation = navigation
        }
    }

    func isPrepared(as presentation: ScreenPresentation) -> Bool {
        guard presentation != .loadView else { return true }
        return root?.hasAppeared == true && window?.isKeyWindow == true
    }

    func show(_ screen: Controller, as presentation: ScreenPresentation) {
        switch presentation {
        case .loadView:
            screen.loadViewIfNeeded()
        case .present, .hosting:
            root?.present(screen, animated: animated) { [weak self] in self?.presented = true }
        case .push:
            navigation?.pushViewController(screen, animated: animated)
        }
    }

    func isShown(_ screen: Controller, as presentation: ScreenPresentation) -> Bool {
        switch presentation {
        case .loadView:
            return screen.isViewLoaded
        case .present, .hosting:
            return presented && screen.viewIfLoaded?.window != nil
        case .push:
            return navigationCallbacks.shown === screen && screen.viewIfLoaded?.window != nil
        }
    }

    func hide(_ screen: Controller, as presentation: ScreenPresentation) {
        switch presentation {
        case .loadView:
            break
        case .present, .hosting:
            // From the presenting side: also takes down what the interaction presented on top.
            root?.dismiss(animated: animated) { [weak self] in self?.dismissed = true }
        case .push:
            navigation?.popToRootViewController(animated: animated)
        }
    }

    func isHidden(_ screen: Controller, as presentation: ScreenPresentation) -> Bool {
        switch presentation {
        case .loadView:
            return true
        case .present, .hosting:
            return dismissed && screen.presentingViewController == nil && screen.viewIfLoaded?.window == nil
        case .push:
            guard let navigation else { return true }
            return navigationCallbacks.shown === root && !navigation.viewControllers.contains { $0 === screen }
                && screen.viewIfLoaded?.window == nil
        }
    }

    func tearDown() {
        window?.isHidden = true
        window?.rootViewController = nil
        window = nil
        root = nil
        navigation = nil
        previousKeyWindow?.makeKey()
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
        previousKeyWindow = scene.windows.first { $0.isKeyWindow }
        let window = UIWindow(windowScene: scene)
        window.rootViewController = root
        window.makeKeyAndVisible()
        self.window = window
    }
}

/// The test window's root: says when it has appeared, which is when the window can take a
/// presentation or a push.
final class TestWindowRoot: UIViewController {
    private(set) var hasAppeared = false

    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        hasAppeared = true
    }
}

/// The navigation controller's `didShow`: the controller on top once a push or pop has finished.
@MainActor
final class NavigationCallbacks: NSObject, UINavigationControllerDelegate {
    private(set) weak var shown: UIViewController?

    func navigationController(_ navigationController: UINavigationController, didShow viewController: UIViewController, animated: Bool) {
        shown = viewController
    }
}
#endif
