#if canImport(SwiftUI) && canImport(UIKit) && !os(watchOS)
import LeakCheck
import SwiftUI
import UIKit

extension DeallocationLifecycle {
    /// Shows `content(object)` in a `UIHostingController` presented in a test window, runs
    /// `interaction` while it is on screen, dismisses it, and checks the object — the view
    /// model a SwiftUI view holds, since the view itself is a value.
    ///
    /// ```swift
    /// await expectDeallocation(.hosting { model in ProfileView(model: model) }) { ProfileModel() }
    /// ```
    public static func hosting<Content: View>(
        animated: Bool = true, timeout: Duration = .seconds(5),
        _ content: @escaping @MainActor (Object) -> Content,
        interaction: (@MainActor (Object) async throws -> Void)? = nil
    ) -> DeallocationLifecycle<Object> {
        .screen(.hosting, timeout: timeout, host: { UIKitScreenHost<UIHostingController<Content>>(animated: animated) },
                screen: { object in UIHostingController(rootView: content(object)) }, interaction: interaction)
    }
}
#endif
