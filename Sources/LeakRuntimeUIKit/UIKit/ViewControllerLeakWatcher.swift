#if canImport(UIKit) && !os(watchOS)
import Foundation
import LeakRuntime
import ObjectiveC
import UIKit

/// Watches every view controller of a running app once it is popped or dismissed — with its
/// child controllers, the controller it presented and its views — and reports the ones still
/// alive after the `LeakWatcher`'s checks (two in a row, 3 s apart, by default).
///
/// ```swift
/// // In application(_:didFinishLaunchingWithOptions:) or the App's init, in debug builds:
/// #if DEBUG
/// ViewControllerLeakWatcher.start()
/// #endif
/// ```
/// Runs on the simulator only unless `onDevice` is true. Findings go to `onLeak` (by default a
/// line on standard error, which Xcode's console shows) and, as report lines with
/// `source: "watcher"`, to the process's leak report. System controllers and views are not
/// watched (see `ScreenWatchRules`); adopt `LeakWatchIgnoring` for a controller kept on purpose.
///
/// It sees disappearances by replacing `UIViewController.viewDidDisappear(_:)` with a version
/// that calls the original first; `stop()` puts the original back. A controller whose override
/// does not call `super.viewDidDisappear(_:)` is not seen.
@MainActor
public enum ViewControllerLeakWatcher {
    /// The watcher findings come from, while started.
    public static var watcher: LeakWatcher? { departures?.watcher }
    private static var departures: ScreenDepartures?
    private static var originalImplementation: IMP?
    private static var replacement: IMP?

    /// Starts watching. Call it once, at launch.
    ///
    /// - Parameters:
    ///   - rules: which classes are the system's, and which to leave alone.
    ///   - configuration: the `LeakWatcher`'s interval, strikes, allowlist, budgets and report (its
    ///     `objectQueue` is the main queue, whatever it says).
    ///   - onDevice: also on a device (the default is the simulator only).
    ///   - onLeak: receives each leak; by default prints its message.
    /// - Returns: whether it started: false on a device without `onDevice`, or when already started.
    @discardableResult
    public static func start(
        rules: ScreenWatchRules = ScreenWatchRules(),
        configuration: LeakWatcher.Configuration = LeakWatcher.Configuration(),
        onDevice: Bool = false,
        onLeak: (@Sendable (LeakWatcherFinding) -> Void)? = ViewControllerLeakWatcher.printFinding,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> Bool {
        #if !targetEnvironment(simulator)
        guard onDevice else { return false }
        #endif
        guard departures == nil else { return false }
        let selector = #selector(UIViewController.viewDidDisappear(_:))
        guard let method = class_getInstanceMethod(UIViewController.self, selector) else { return false }
        let original = method_getImplementation(method)
        typealias ViewDidDisappear = @convention(c) (UIViewController, Selector, Bool) -> Void
        let callOriginal = unsafeBitCast(original, to: ViewDidDisappear.self)
        let block: @convention(block) (UIViewController, Bool) -> Void = { controller, animated in
            callOriginal(controller, selector, animated)
            MainActor.assumeIsolated { screenDidDisappear(controller) }
        }
        let replacement = imp_implementationWithBlock(block)
        method_setImplementation(method, replacement)
        self.originalImplementation = original
        self.replacement = replacement
        // Controllers and views are looked at, and released, on the main thread only.
        var configuration = configuration
        configuration.objectQueue = .main
        let watcher = LeakWatcher(configuration: configuration, onLeak: onLeak)
        watcher.start()
        departures = ScreenDepartures(
            watcher: watcher, rules: rules,
            location: CallerLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        return true
    }

    /// Stops watching and puts `viewDidDisappear(_:)` back as it was.
    public static func stop() {
        let selector = #selector(UIViewController.viewDidDisappear(_:))
        if let original = originalImplementation, let method = class_getInstanceMethod(UIViewController.self, selector) {
            method_setImplementation(method, original)
        }
        if let replacement {
            imp_removeBlock(replacement)
        }
        originalImplementation = nil
        replacement = nil
        departures?.watcher.stop()
        departures = nil
    }

    /// Prints a finding's message on standard error.
    public nonisolated static let printFinding: @Sendable (LeakWatcherFinding) -> Void = { finding in
        FileHandle.standardError.write(Data("LeakCheck: \(finding.record.message ?? finding.record.type)\n".utf8))
    }

    private static func screenDidDisappear(_ controller: UIViewController) {
        guard let departures else { return }
        let insideDismissal = sequence(first: controller, next: { $0.parent }).contains { $0.isBeingDismissed }
        guard ScreenTree.hasLeft(
            isMovingFromParent: controller.isMovingFromParent, isBeingDismissed: controller.isBeingDismissed,
            isInsideDismissal: insideDismissal)
        else { return }
        departures.watch(tree(of: controller))
    }

    private static func tree(of controller: UIViewController) -> ScreenTree {
        var children = controller.children.map(tree(of:))
        if let presented = controller.presentedViewController, presented.presentingViewController === controller {
            children.append(tree(of: presented))
        }
        if let view = controller.viewIfLoaded {
            children.append(tree(of: view))
        }
        return ScreenTree(object: controller, children: children)
    }

    private static func tree(of view: UIView) -> ScreenTree {
        ScreenTree(object: view, isInUse: view.window != nil, children: view.subviews.map(tree(of:)))
    }
}
#endif
