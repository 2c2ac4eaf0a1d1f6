#if canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit

/// Shows view controllers for the AppKit lifecycles on a test window of its own. In a running
/// app (an app-hosted test, `NSApp.isRunning`) `.present` shows the screen as a sheet on that
/// window; without one (`swift test`), where a sheet never attaches, the screen is the window's
/// content instead — it still appears and disappears, which is what the check needs. The
/// window must be visible before anything goes on it, and the window that was key before is
/// made key again at the end. One host per check.
@MainActor
final class AppKitScreenHost<Controller: NSViewController>: ScreenHost {
    private var window: NSWindow?
    private var root: NSViewController?
    private weak var previousKeyWindow: NSWindow?
    /// Whether the screen goes up as a sheet (in a running app), else as the window's content.
    private var asSheet = false

    func prepare(_ screen: Controller, as presentation: ScreenPresentation) throws {
        switch presentation {
        case .loadView:
            break
        case .present, .hosting:
            let application = NSApplication.shared
            previousKeyWindow = application.keyWindow
            asSheet = application.isRunning
            let root = NSViewController()
            root.view = NSView(frame: NSRect(x: 0, y: 0, width: 800, height: 600))
            let window = NSWindow(
                contentRect: root.view.frame, styleMask: [.titled, .closable], backing: .buffered, defer: false)
            // Owned here; AppKit must not release it a second time when it closes.
            window.isReleasedWhenClosed = false
            window.contentViewController = root
            window.makeKeyAndOrderFront(nil)
            self.window = window
            self.root = root
        case .push:
            throw ScreenLifecycleError.needsHostApp(
                String(reflecting: type(of: screen)), presentation, detail: "AppKit has no navigation controller to push on")
        }
    }

    func isPrepared(as presentation: ScreenPresentation) -> Bool {
        guard presentation == .present || presentation == .hosting else { return true }
        return window?.isVisible == true
    }

    func show(_ screen: Controller, as presentation: ScreenPresentation) {
        switch presentation {
        case .loadView:
            _ = screen.view
        case .present, .hosting:
            if asSheet {
                root?.presentAsSheet(screen)
            } else {
                window?.contentViewController = screen
            }
        case .push:
            break
        }
    }

    func isShown(_ screen: Controller, as presentation: ScreenPresentation) -> Bool {
        switch presentation {
        case .loadView:
            return screen.isViewLoaded
        case .present, .hosting:
            let onScreen = screen.isViewLoaded && screen.view.window?.isVisible == true
            return onScreen && (!asSheet || screen.presentingViewController != nil)
        case .push:
            return false
        }
    }

    func hide(_ screen: Controller, as presentation: ScreenPresentation) {
        guard presentation == .present || presentation == .hosting else { return }
        if asSheet {
            screen.presentingViewController?.dismiss(screen)
        } else {
            window?.contentViewController = root
        }
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
        root = nil
        previousKeyWindow?.makeKey()
    }

    func nextTurn() async {
        await MainRunLoop.nextTurn()
    }
}
#endif
