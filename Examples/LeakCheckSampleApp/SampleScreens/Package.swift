// swift-tools-version: 6.0
import PackageDescription

// A small app's screens and their deallocation tests, for the Apple CI workflow
// (.github/workflows/apple.yml): `swift test` here runs them on macOS (AppKit), and
// ../project.yml (XcodeGen) wraps the same screens in an iOS app that hosts the same tests on
// a simulator (UIKit: present and push need a host app).
let package = Package(
    name: "SampleScreens",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [.library(name: "SampleScreens", targets: ["SampleScreens"])],
    dependencies: [.package(name: "LeakHistory", path: "../../..")],
    targets: [
        // What the app ships: no LeakCheck in it.
        .target(name: "SampleScreens"),
        .testTarget(
            name: "SampleScreensTests",
            dependencies: [
                "SampleScreens",
                .product(name: "LeakCheck", package: "LeakHistory"),
                .product(name: "LeakCheckUIKit", package: "LeakHistory"),
            ]
        ),
    ]
)
