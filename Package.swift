// swift-tools-version: 6.1
// The toolchain floor: Swift 6.1 (Xcode 16.3), for Swift Testing's `TestScoping` (the
// `.checksDeallocation` trait). Newer Testing APIs sit behind `#if compiler(>=…)` with a fallback
// (`ToolchainFloorTests` reads the sources for any that do not).
import PackageDescription

let package = Package(
    name: "LeakHistory",
    // The floor of LeakCheck and LeakReport, which apps add to their test targets: `Duration` and
    // `ContinuousClock` need macOS 13 / iOS 16. Nothing newer may be used in them
    // (`AvailabilityFloorTests` reads their sources for APIs above it).
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "LeakRuntime", targets: ["LeakRuntime"]),
        .library(name: "LeakRuntimeUIKit", targets: ["LeakRuntimeUIKit"]),
        .library(name: "LeakCheck", targets: ["LeakCheck"]),
        .library(name: "LeakCheckUIKit", targets: ["LeakCheckUIKit"]),
        .library(name: "LeakReport", targets: ["LeakReport"]),
        .library(name: "LeakStore", targets: ["LeakStore"]),
        .library(name: "LeakServer", targets: ["LeakServer"]),
        .executable(name: "leakhistory-server", targets: ["leakhistory-server"]),
        .executable(name: "leakhistory", targets: ["leakhistory"]),
    ],
    targets: [
        // The report model: schema, NDJSON reader and writer, diff classification, API types.
        // No dependencies beyond Foundation.
        .target(name: "LeakReport"),
        // What an app's debug build or a service links: the watcher, the retain-path search, report
        // writing. Foundation only — never XCTest or Testing (`RuntimeProductGraphTests`).
        .target(name: "LeakRuntime", dependencies: ["LeakReport", "CLeakCheckSupport"]),
        // The view-controller watcher (UIKit), apart so that a service links no swizzling.
        .target(name: "LeakRuntimeUIKit", dependencies: ["LeakRuntime"]),
        // What users add to their test targets: the runtime (re-exported), plus Testing and XCTest.
        .target(name: "LeakCheck", dependencies: ["LeakRuntime", "LeakReport"]),
        // Reads this process's memory without faulting and lists its images' writable segments,
        // for the retain-path search (Linux with glibc; empty elsewhere). No system library.
        .target(name: "CLeakCheckSupport"),
        // View-controller lifecycles (UIKit, AppKit, SwiftUI hosting) for tests, apart so that a problem there never breaks LeakCheck. Their sequencing and
        // rules are platform-neutral and tested on Linux; the UIKit/AppKit adapters are thin.
        .target(name: "LeakCheckUIKit", dependencies: ["LeakCheck", "LeakRuntimeUIKit"]),

        // Thin module maps over the Debian C libraries the server and CLI link.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // gzip through zlib, in one place: uploads compressed by the CLI, inflated by the server.
        .target(name: "GzipCoding", dependencies: ["CZlib"]),
        // Storage: the boundary (`LeakStorage`), its queries written once, and two engines —
        // SQLite through its C API, PostgreSQL through libpq; the migrations are compiled in.
        .target(
            name: "LeakStore",
            dependencies: ["LeakReport", "CSQLite", "CPostgres", "CCrypto"],
            resources: [.embedInCode("Migrations")]
        ),
        // The HTTP service over libmicrohttpd: routing, auth, ingest, metrics.
        .target(name: "LeakServer", dependencies: ["LeakStore", "LeakReport", "CMicroHTTPD", "GzipCoding"]),
        .executableTarget(name: "leakhistory-server", dependencies: ["LeakServer", "LeakStore"]),
        // The command CI runs.
        .executableTarget(name: "leakhistory", dependencies: ["LeakReport", "GzipCoding"]),

        // A keep-alive HTTP client for loopback, and the fuzz input format, shared by the bench,
        // the fuzzer and the tests that replay its findings.
        .target(name: "LoopbackClient", dependencies: ["GzipCoding"]),
        // The speed figures, each beside a baseline measured in the same run; the crash and
        // load tests.
        .executableTarget(
            name: "leakhistory-bench",
            dependencies: ["GzipCoding", "LeakCheck", "LeakReport", "LeakStore", "LeakServer", "LoopbackClient"]
        ),
        // The upload path under libFuzzer (`make fuzz`), or a replay of saved inputs.
        .executableTarget(name: "leakhistory-fuzz", dependencies: ["LeakServer", "LeakStore", "LoopbackClient"]),

        // A service that links the watcher alone (LeakRuntimeTests runs it).
        .executableTarget(name: "leak-watcher-example", dependencies: ["LeakRuntime"], path: "Examples/LeakWatcherService"),

        // Appends report lines from a separate process, for the concurrent-writers test.
        .executableTarget(name: "ReportAppendProbe", dependencies: ["LeakReport"]),

        .testTarget(name: "LeakReportTests", dependencies: ["LeakReport", "ReportAppendProbe"]),
        .testTarget(name: "LeakCheckTests", dependencies: ["LeakCheck", "LeakRuntime", "LeakReport"]),
        .testTarget(name: "LeakCheckUIKitTests", dependencies: ["LeakCheckUIKit", "LeakRuntimeUIKit", "LeakCheck", "LeakRuntime"]),
        // The runtime: its package graph (no XCTest, no Testing), the example that links it alone, and
        // its uploader against the real server over real sockets.
        .testTarget(
            name: "LeakRuntimeTests",
            dependencies: ["LeakRuntime", "LeakReport", "LeakServer", "LeakStore", "leak-watcher-example"]
        ),
        // Leak shapes from real code, each with the exact path LeakCheck must name.
        .testTarget(name: "LeakCheckCorpusTests", dependencies: ["LeakCheck", "LeakRuntime", "LeakReport"]),
        // The same call shapes compiled in Swift 5 language mode.
        .testTarget(
            name: "LeakCheckSwift5Tests",
            dependencies: ["LeakCheck"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Golden/: the answers the layout before compact storage gave (CompactStorageTests reads it).
        .testTarget(name: "LeakStoreTests", dependencies: ["LeakStore", "LeakReport", "CSQLite"], exclude: ["Golden"]),
        .testTarget(
            name: "LeakServerTests",
            dependencies: ["LeakServer", "LeakStore", "LeakReport", "GzipCoding", "leakhistory-server", "LoopbackClient"]
        ),
        // Resources: the published SARIF 2.1.0 schema the SARIF output is validated against.
        .testTarget(
            name: "leakhistoryTests",
            dependencies: ["leakhistory", "LeakServer", "LeakStore", "LeakReport"],
            resources: [.copy("Resources/sarif-schema-2.1.0.json")]
        ),
    ]
)
