#if canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit
import LeakCheck
import SwiftUI

extension DeallocationLifecycle where Object: NSViewController {
    /// Loads the controller's view, runs `interaction`, and releases it. Needs no window.
    ///
    /// ```swift
    /// await expectDeallocation(.loadView()) { PreferencesViewController() }
    /// ```
    public static func loadView(
        interaction: (@MainActor (Object) async throws -> Void)? = nil
    ) -> DeallocationLifecycle<Object> {
        .screen(.loadView, timeout: .seconds(5), host: { AppKitScreenHost<Object>() }, screen: { $0 }, interaction: interaction)
    }

    /// Presents the controller as a sheet on a test window, waits until it is on screen, runs
    /// `interaction`, dismisses it and waits until it is gone; then the check runs.
    ///
    /// - Parameters:
    ///   - timeout: how long each step may take to reach its state.
    ///   - interaction: runs while the sheet is up; an error it throws is the check's error.
    public static func present(
        timeout: Duration = .seconds(5), interaction: (@MainActor (Object) async throws -> Void)? = nil
    ) -> DeallocationLifecycle<Object> {
        .screen(.present, timeout: timeout, host: { AppKitScreenHost<Object>() }, screen: { $0 }, interaction: interaction)
    }
}

extension DeallocationLifecycle {
    /// Shows `content(object)` in an `NSHostingController` presented as a sheet, runs
    /// `interaction`, dismisses it, and checks the object (the view's model).
    ///
    /// ```swift
    /// await expectDeallocation(.hosting { model in PreferencesView(model: model) }) { PreferencesModel() }
    /// ```
    public static func hosting<Content: View>(
        timeout: Duration = .seconds(5),
        _ content: @escaping @MainActor (Object) -> Content,
        interaction: (@MainActor (Object) async throws -> Void)? = nil
    ) -> DeallocationLifecycle<Object> {
        .screen(.hosting, timeout: timeout, host: { AppKitScreenHost<NSHostingController<Content>>() },
                screen: { object in NSHostingController(rootView: content(object)) }, interaction: interaction)
    }
}
#endif
