import Foundation
import Testing

/// What an app's debug build or a service links must not bring XCTest or Testing along: linked
/// into an app, they fail at launch ("Library not loaded: @rpath/XCTest.framework"). Proven from
/// the package graph SwiftPM describes, and from the sources of every target in it.
@Suite struct RuntimeProductGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// What apps and services link, and the example that links the watcher alone.
    static let appSide = ["LeakRuntime", "LeakRuntimeUIKit", "leak-watcher-example"]

    @Test func theRuntimeProductsAndTheExampleImportNoTestFramework() throws {
        let graph = try PackageGraph.described(at: Self.root)
        for product in Self.appSide {
            let targets = try #require(graph.closure(ofProduct: product), "Package.swift has no product or target \(product)")
            #expect(!targets.contains("LeakCheck") && !targets.contains("LeakCheckUIKit"), "\(product) links the test helpers: \(targets.sorted())")
            let imports = try graph.testFrameworkImports(in: targets, root: Self.root)
            #expect(imports.isEmpty, "\(product) reaches XCTest or Testing:\n\(imports.joined(separator: "\n"))")
        }
    }

    @Test func aTestFrameworkAnywhereInTheClosureIsFound() throws {
        let graph = PackageGraph(
            products: ["App": ["A"]],
            targets: ["A": .init(path: "A", sources: ["a.swift"], dependencies: ["B"]),
                      "B": .init(path: "B", sources: ["b.swift"], dependencies: [])])
        #expect(graph.closure(ofProduct: "App") == ["A", "B"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("graph-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (target, text) in [("A", "import Foundation\n"), ("B", "// import XCTest is a comment\n@preconcurrency import XCTest\n")] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(target), withIntermediateDirectories: true)
            try text.write(to: folder.appendingPathComponent("\(target)/\(target.lowercased()).swift"), atomically: true, encoding: .utf8)
        }
        #expect(try graph.testFrameworkImports(in: ["A", "B"], root: folder) == ["B/b.swift:2: @preconcurrency import XCTest"])
    }

    @Test func theExampleLinksTheWatcherAloneAndFindsTheLeak() throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("leak-watcher-example")
        let process = Process()
        process.executableURL = binary
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LEAKHISTORY_") }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("UploadHandler is still alive after 2 checks in a row"), "\(text)")
        #expect(text.contains("1 of 4 handlers outlived their requests"), "\(text)")
    }
}

/// The targets, products and sources of a package, as `swift package describe --type json` gives them.
struct PackageGraph {
    struct Target {
        var path: String
        var sources: [String]
        var dependencies: [String]
    }

    var products: [String: [String]]
    var targets: [String: Target]

    static func described(at root: URL) throws -> PackageGraph {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Its own scratch folder: the build folder is locked while the tests run.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        process.arguments = ["swift", "package", "--scratch-path", scratch.path, "describe", "--type", "json"]
        process.currentDirectoryURL = root
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw DescribeFailed(status: process.terminationStatus) }
        struct Description: Decodable {
            struct Product: Decodable { var name: String; var targets: [String] }
            struct Target: Decodable {
                var name: String
                var path: String
                var sources: [String]?
                var target_dependencies: [String]?
                var product_dependencies: [String]?
            }
            var products: [Product]
            var targets: [Target]
        }
        let description = try JSONDecoder().decode(Description.self, from: data)
        return PackageGraph(
            products: Dictionary(uniqueKeysWithValues: description.products.map { ($0.name, $0.targets) }),
            targets: Dictionary(uniqueKeysWithValues: description.targets.map {
                ($0.name, Target(path: $0.path, sources: $0.sources ?? [],
                                 dependencies: ($0.target_dependencies ?? []) + ($0.product_dependencies ?? [])))
            }))
    }

    struct DescribeFailed: Error { var status: Int32 }

    /// Every target `name` (a product, or a target) builds, its own included.
    func closure(ofProduct name: String) -> Set<String>? {
        guard let start = products[name] ?? (targets[name] != nil ? [name] : nil) else { return nil }
        var found: Set<String> = []
        var pending = start
        while let target = pending.popLast() {
            guard found.insert(target).inserted else { continue }
            pending += targets[target]?.dependencies ?? []
            pending += products[target] ?? []
        }
        return found
    }

    /// `file:line: text` of each line in the targets' sources that imports XCTest or Testing.
    func testFrameworkImports(in names: Set<String>, root: URL) throws -> [String] {
        let importLine = try Regex(#"^\s*(@[A-Za-z_()]+\s+)*import\s+(XCTest|Testing)\b"#)
        var found: [String] = []
        for name in names.sorted() {
            guard let target = targets[name] else { continue }
            for source in target.sources where source.hasSuffix(".swift") {
                let file = "\(target.path)/\(source)"
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains(importLine) {
                    found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        return found
    }
}
