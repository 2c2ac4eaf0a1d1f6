import Foundation
import Testing
@testable import LeakCheckUIKit
@testable import LeakRuntimeUIKit

// Stand-ins for a screen's objects: the app's own, a system class by module, one kept on purpose.
final class ProfileController {}
final class AvatarView {}
final class HeaderView {}
final class CachedController: LeakWatchIgnoring {}

@Suite struct ScreenTreeTests {
    let rules = ScreenWatchRules()

    @Test func systemClassesAreLookedIntoNotWatched() {
        #expect(rules.verdict(forTypeNamed: "UILabel") == .lookInside)
        #expect(rules.verdict(forTypeNamed: "__C.UINavigationController") == .lookInside)
        #expect(rules.verdict(forTypeNamed: "_UILayoutGuide") == .lookInside)
        #expect(rules.verdict(forTypeNamed: "SwiftUI._UIHostingView<SwiftUI.ModifiedContent<App.ProfileView, SwiftUI._FlexFrameLayout>>") == .lookInside)
        #expect(rules.verdict(forTypeNamed: "UIKit.UIHostingController<App.ProfileView>") == .lookInside)
        #expect(rules.verdict(forTypeNamed: "App.ProfileViewController") == .watch)
        #expect(rules.verdict(forTypeNamed: "App.UIProfileView") == .watch, "a system prefix only counts for Objective-C names")
        #expect(rules.verdict(forTypeNamed: "App.Screens<App.UIKitThing>") == .watch)
    }

    @Test func ignoredClassesAreLeftAloneByShortOrQualifiedName() {
        var rules = ScreenWatchRules(ignoredClasses: ["PlayerViewController", "Feed.CachedCell"])
        #expect(rules.verdict(forTypeNamed: "App.PlayerViewController") == .leaveAlone)
        #expect(rules.verdict(forTypeNamed: "Feed.CachedCell") == .leaveAlone)
        #expect(rules.verdict(forTypeNamed: "Other.CachedCellView") == .watch)
        rules.ignoredClasses = []
        #expect(rules.verdict(forTypeNamed: "App.PlayerViewController") == .watch)
    }

    @Test func theIgnoreProtocolLeavesAnObjectAlone() {
        #expect(rules.verdict(for: CachedController()) == .leaveAlone)
        #expect(rules.verdict(for: ProfileController()) == .watch)
    }

    /// A dismissed navigation controller (the system's) holding the app's controller, whose view
    /// holds a system label and the app's avatar view, and a cached controller with its own view.
    @Test func theAppsControllersAndViewsAreWatchedThroughSystemContainers() {
        let profile = ProfileController(), avatar = AvatarView(), cached = CachedController(), cachedView = HeaderView()
        let label = NSObject()   // an Objective-C-named class stands in for UILabel
        let tree = ScreenTree(object: NSObject(), children: [
            ScreenTree(object: profile, children: [
                ScreenTree(object: label, children: [ScreenTree(object: avatar)]),
            ]),
            ScreenTree(object: cached, children: [ScreenTree(object: cachedView)]),
        ])
        let watched = tree.objectsToWatch(rules: ScreenWatchRules(systemModules: ["Foundation"], systemPrefixes: ["NS"]))
        #expect(watched.map(ObjectIdentifier.init) == [profile, avatar].map(ObjectIdentifier.init))
    }

    @Test func aViewBackInAWindowIsNotWatched() {
        let root = ProfileController(), reused = HeaderView(), inside = AvatarView()
        let tree = ScreenTree(object: root, children: [ScreenTree(object: reused, isInUse: true, children: [ScreenTree(object: inside)])])
        #expect(tree.objectsToWatch(rules: rules).map(ObjectIdentifier.init) == [ObjectIdentifier(root)])
    }

    @Test func eachObjectOnceAndAtMostTheBound() {
        let root = ProfileController(), shared = HeaderView()
        let views = (0..<10).map { _ in AvatarView() }
        // A child controller's view appears under the controller and in its parent's view.
        let tree = ScreenTree(object: root, children: [ScreenTree(object: shared), ScreenTree(object: shared)]
            + views.map { ScreenTree(object: $0) })
        #expect(tree.objectsToWatch(rules: rules).count == 12)
        #expect(tree.objectsToWatch(rules: ScreenWatchRules(maxObjectsPerScreen: 5)).count == 5)
    }

    @Test func aControllerHasLeftWhenPoppedRemovedOrDismissed() {
        #expect(ScreenTree.hasLeft(isMovingFromParent: true, isBeingDismissed: false, isInsideDismissal: false))
        #expect(ScreenTree.hasLeft(isMovingFromParent: false, isBeingDismissed: true, isInsideDismissal: true))
        #expect(ScreenTree.hasLeft(isMovingFromParent: false, isBeingDismissed: false, isInsideDismissal: true))
        #expect(!ScreenTree.hasLeft(isMovingFromParent: false, isBeingDismissed: false, isInsideDismissal: false),
                "covered by another screen, or the app went to the background: still in use")
    }
}
