import SwiftUI

/// The model of the profile screen, shared by the UIKit, AppKit and SwiftUI versions.
@MainActor
public final class ProfileModel: ObservableObject {
    @Published public var name = "Ada"
    @Published public private(set) var saves = 0

    public init() {}

    public func save() { saves += 1 }
}

/// The profile screen in SwiftUI.
public struct ProfileView: View {
    @ObservedObject var model: ProfileModel

    public init(model: ProfileModel) { self.model = model }

    public var body: some View {
        VStack {
            Text(model.name)
            Button("Save") { model.save() }
        }
    }
}

/// A model that keeps itself alive: the deliberate leak the tests catch.
@MainActor
public final class LeakyModel: ObservableObject {
    private var onChange: (() -> Void)?

    public init() {
        onChange = { self.objectWillChange.send() }   // captures self strongly: a cycle
    }
}
