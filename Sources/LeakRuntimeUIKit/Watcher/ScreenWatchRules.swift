/// Which objects of a screen that has left the view-controller watcher watches: everything of
/// the app's own, nothing of the system's.
///
/// ```swift
/// var rules = ScreenWatchRules()
/// rules.ignoredClasses = ["ImageCacheView", "App.PlayerViewController"]
/// ```
/// System classes (UIKit, SwiftUI, AppKit and the other frameworks' controllers and views) are
/// not watched themselves — they are reused and cached by the system — but what they contain
/// is: the app's controllers inside a `UINavigationController`, its views inside a
/// `UIStackView`. Classes in `ignoredClasses`, and those adopting `LeakWatchIgnoring`, are left
/// alone with everything inside them.
public struct ScreenWatchRules: Sendable {
    /// Class names left alone with their contents: short (`PlayerViewController`) or
    /// module-qualified (`App.PlayerViewController`).
    public var ignoredClasses: Set<String>
    /// Modules whose Swift classes are the system's.
    public var systemModules: Set<String>
    /// Name prefixes of Objective-C classes that are the system's (`UI`, `NS`, `_UI`, …).
    public var systemPrefixes: [String]
    /// The most objects watched for one screen: a bound on the work one dismissal costs.
    public var maxObjectsPerScreen: Int

    public static let defaultSystemModules: Set<String> = [
        "UIKit", "SwiftUI", "AppKit", "MapKit", "WebKit", "AVKit", "SafariServices", "PhotosUI", "MessageUI",
        "QuickLook", "PassKit", "StoreKit", "ContactsUI", "Combine", "Foundation",
    ]

    public static let defaultSystemPrefixes = [
        "UI", "_UI", "NS", "_NS", "CA", "_CA", "WK", "_WK", "AV", "_AV", "MK", "_MK", "SF", "PK", "SK", "PU", "PH", "QL",
        "CN", "MF", "_TtC7SwiftUI", "_TtGC7SwiftUI",
    ]

    public init(
        ignoredClasses: Set<String> = [], systemModules: Set<String> = ScreenWatchRules.defaultSystemModules,
        systemPrefixes: [String] = ScreenWatchRules.defaultSystemPrefixes, maxObjectsPerScreen: Int = 2_000
    ) {
        self.ignoredClasses = ignoredClasses
        self.systemModules = systemModules
        self.systemPrefixes = systemPrefixes
        self.maxObjectsPerScreen = max(1, maxObjectsPerScreen)
    }

    /// What the watcher does with one object of the tree.
    enum Verdict: Equatable {
        /// The app's own: watched, and its contents looked at.
        case watch
        /// The system's: not watched, its contents looked at.
        case lookInside
        /// Ignored on purpose: neither it nor its contents.
        case leaveAlone
    }

    func verdict(for object: AnyObject) -> Verdict {
        if object is LeakWatchIgnoring { return .leaveAlone }
        return verdict(forTypeNamed: String(reflecting: type(of: object)))
    }

    /// `typeName` as `String(reflecting:)` spells it: `App.ProfileViewController`, `UILabel`
    /// (an Objective-C class, sometimes spelt `__C.UILabel`), `SwiftUI._UIHostingView<…>`.
    func verdict(forTypeNamed typeName: String) -> Verdict {
        let name = typeName.hasPrefix("__C.") ? String(typeName.dropFirst(4)) : typeName
        let generic = name.firstIndex(of: "<").map { name[..<$0] } ?? name[...]
        let parts = generic.split(separator: ".")
        let short = parts.last.map(String.init) ?? name
        if ignoredClasses.contains(short) || ignoredClasses.contains(String(generic)) { return .leaveAlone }
        if parts.count > 1 {
            return systemModules.contains(String(parts[0])) ? .lookInside : .watch
        }
        return systemPrefixes.contains(where: { name.hasPrefix($0) }) ? .lookInside : .watch
    }
}
