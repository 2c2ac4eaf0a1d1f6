// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "LeakHistory",
    products: [
        .library(name: "LeakCheck", targets: ["LeakCheck"]),
        .library(name: "LeakReport", targets: ["LeakReport"]),
    ],
    targets: [
        // The report model: schema, NDJSON reader and writer. No dependencies beyond Foundation.
        .target(name: "LeakReport"),
        // What users add to their test targets: Foundation, Testing and XCTest only.
        .target(name: "LeakCheck", dependencies: ["LeakReport"]),

        // The speed figures, each beside a baseline measured in the same run.
        .executableTarget(name: "leakhistory-bench", dependencies: ["LeakCheck"]),

        // Appends report lines from a separate process, for the concurrent-writers test.
        .executableTarget(name: "ReportAppendProbe", dependencies: ["LeakReport"]),

        .testTarget(name: "LeakReportTests", dependencies: ["LeakReport", "ReportAppendProbe"]),
        .testTarget(name: "LeakCheckTests", dependencies: ["LeakCheck", "LeakReport"]),
        // The same call shapes compiled in Swift 5 language mode.
        .testTarget(
            name: "LeakCheckSwift5Tests",
            dependencies: ["LeakCheck"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
