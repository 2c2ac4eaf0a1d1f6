#if canImport(UIKit) && !os(watchOS)
import LeakCheck
import UIKit

extension DeallocationLifecycle where Object: UIViewController {
    /// Loads the controller's view (`loadViewIfNeeded`), runs `interaction`, and releases it.
    /// Needs no window, so no host app.
    ///
    /// ```swift
    /// @MainActor @Test func profileLoads() async {
    ///     await expectDeallocation(.loadView()) { ProfileViewController(model: .preview) }
    /// }
    /// ```
    public static func loadView(
        interaction: (@MainActor (Object) async throws -> Void)? = nil
    ) -> DeallocationLifecycle<Object> {
        .screen(.loadView, timeout: .seconds(5), host: { UIKitScreenHost<Object>(animated: false) }, screen: { $0 },
                interaction: interaction)
    }

    /// Presents the controller in a test window, waits until it has appeared, runs
    /// `interaction`, dismisses it and waits until it is gone; then the check runs. Needs a
    /// test target with a host app; without one, the check's error says so.
    ///
    /// ```swift
    /// await expectDeallocation(.present { screen in screen.saveButton.sendActions(for: .touchUpInside) }) {
    ///     EditProfileViewController()
    /// }
    /// ```
    /// - Parameters:
    ///   - animated: whether the transitions animate, as in the app (default) or not (faster).
    ///   - timeout: how long each step may take to reach its state (appeared, dismissed).
    ///   - interaction: runs while the controller is on screen; an error it throws is the
    ///     check's error, not a leak, and the controller is still dismissed.
    public static func present(
        animated: Bool = true, timeout: Duration = .seconds(5),
        interaction: (@MainActor (Object) async throws -> Void)? = nil
    ) -> DeallocationLifecycle<Object> {
        .screen(.present, timeout: timeout, host: { UIKitScreenHost<Object>(animated: animated) }, screen: { $0 },
                interaction: interaction)
    }

    /// Pushes the controller on a navigation controller in a test window, waits until the push
    /// has finished, runs `interaction`, pops it and waits until the pop has finished.
    ///
    /// ```swift
    /// await expectDeallocation(.push()) { SettingsViewController() }
    /// ```
    public static func push(
        animated: Bool = true, timeout: Duration = .seconds(5),
        interaction: (@MainActor (Object) async throws -> Void)? = nil
    ) -> DeallocationLifecycle<Object> {
        .screen(.push, timeout: timeout, host: { UIKitScreenHost<Object>(animated: animated) }, screen: { $0 },
                interaction: interaction)
    }
}
#endif
