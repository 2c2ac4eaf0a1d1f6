#if canImport(UIKit)
import UIKit
public typealias PlatformViewController = UIViewController
#elseif canImport(AppKit)
import AppKit
public typealias PlatformViewController = NSViewController
#endif

/// A clean screen: its button's action goes to the model, which does not hold the screen.
public final class ProfileViewController: PlatformViewController {
    public let model = ProfileModel()
    public private(set) var didAppear = false

    #if canImport(UIKit)
    public let saveButton = UIButton(type: .system)

    public override func viewDidLoad() {
        super.viewDidLoad()
        saveButton.setTitle("Save", for: .normal)
        saveButton.addAction(UIAction { [weak self] _ in self?.model.save() }, for: .touchUpInside)
        view.addSubview(saveButton)
    }

    public override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        didAppear = true
    }
    #elseif canImport(AppKit)
    public override func loadView() {
        view = NSView(frame: NSRect(x: 0, y: 0, width: 320, height: 240))
    }

    public override func viewDidAppear() {
        super.viewDidAppear()
        didAppear = true
    }
    #endif
}

/// A screen that keeps itself alive through a closure that captures it: the deliberate leak.
public final class LeakyViewController: PlatformViewController {
    private var onSave: (() -> Void)?

    public override func viewDidLoad() {
        super.viewDidLoad()
        onSave = { self.title = "saved" }   // captures self strongly
    }

    #if canImport(AppKit) && !canImport(UIKit)
    public override func loadView() {
        view = NSView(frame: NSRect(x: 0, y: 0, width: 320, height: 240))
    }
    #endif
}

#if canImport(UIKit)
/// A screen pushed from the profile: clean.
public final class SettingsViewController: UITableViewController {}
#endif
