#if canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit

/// Shows view controllers for the AppKit lifecycles: presented as a sheet on a test window of
/// its own, and read back through their real state. One host per check.
@MainActor
final class AppKitScreenHost<Controller: NSViewController>: ScreenHost {
    private var window: NSWindow?

    func show(_ screen: Controller, as presentation: ScreenPresentation) throws {
        switch presentation {
        case .loadView:
            _ = screen.view
        case .present, .hosting:
            let root = NSViewController()
            root.view = NSView(frame: NSRect(x: 0, y: 0, width: 800, height: 600))
            let window = NSWindow(
                contentRect: root.view.frame, styleMask: [.titled, .closable], backing: .buffered, defer: false)
            // Owned here; AppKit must not release it a second time when it closes.
            window.isReleasedWhenClosed = false
            window.contentViewController = root
            _ = NSApplication.shared
            window.makeKeyAndOrderFront(nil)
            self.window = window
            root.presentAsSheet(screen)
        case .push:
            throw ScreenLifecycleError.needsHostApp(
                String(reflecting: type(of: screen)), presentation, detail: "AppKit has no navigation controller to push on")
        }
    }

    func isShown(_ screen: Controller, as presentation: ScreenPresentation) -> Bool {
        switch presentation {
        case .loadView:
            return screen.isViewLoaded
        case .present, .hosting:
            return screen.presentingViewController != nil && screen.isViewLoaded && screen.view.window?.isVisible == true
        case .push:
            return false
        }
    }

    func hide(_ screen: Controller, as presentation: ScreenPresentation) {
        guard presentation == .present || presentation == .hosting else { return }
        screen.presentingViewController?.dismiss(screen)
    }

    func isHidden(_ screen: Controller, as presentation: ScreenPresentation) -> Bool {
        switch presentation {
        case .loadView, .push:
            return true
        case .present, .hosting:
            return screen.presentingViewController == nil && !(screen.isViewLoaded && screen.view.window?.isVisible == true)
        }
    }

    func tearDown() {
        window?.orderOut(nil)
        window?.contentViewController = nil
        window = nil
    }

    func nextTurn() async {
        await MainRunLoop.nextTurn()
    }
}
#endif
