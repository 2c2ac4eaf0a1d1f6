/// How a view-controller lifecycle puts its screen up and takes it down.
enum ScreenPresentation: Sendable, Hashable {
    /// Loads the view; nothing goes on screen.
    case loadView
    /// Presented modally in a test window, then dismissed.
    case present
    /// Pushed on a navigation controller in a test window, then popped.
    case push
    /// A SwiftUI view in a hosting controller, presented, then dismissed.
    case hosting

    /// What reports call the lifecycle.
    var lifecycleName: String {
        switch self {
        case .loadView: "loadView"
        case .present: "present"
        case .push: "push"
        case .hosting: "hosting"
        }
    }

    /// "presented", "pushed": what was done to put the screen up.
    var shownVerb: String {
        switch self {
        case .loadView: "loaded"
        case .present, .hosting: "presented"
        case .push: "pushed"
        }
    }

    /// "dismissed", "popped": what was done to take it down.
    var hiddenVerb: String {
        switch self {
        case .loadView: "released"
        case .present, .hosting: "dismissed"
        case .push: "popped"
        }
    }
}
