import Foundation
import LeakServer
import LeakStore
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    private func file(_ text: String) throws -> (URL, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leakhistory-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("leakhistory.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (folder, path)
    }

    @Test func theCommittedFileHoldsTheBuiltInDefaults() throws {
        let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../config/leakhistory.json").standardized.path
        #expect(try ServerConfiguration.load(path: committed, environment: [:]) == ServerConfiguration())
    }

    @Test func environmentOverridesTheFile() throws {
        let (folder, path) = try file(#"{"port": 9000, "database": "a.sqlite", "limits": {"maxChecksPerRun": 7}}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = try ServerConfiguration.load(path: path, environment: [
            "LEAKHISTORY_PORT": "9100", "LEAKHISTORY_HOST": "0.0.0.0", "LEAKHISTORY_REQUIRE_READ_TOKEN": "true",
        ])
        #expect(configuration.port == 9100)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.database == "a.sqlite")
        #expect(configuration.requireReadToken)
        #expect(configuration.limits.maxChecksPerRun == 7)
        #expect(configuration.limits.maxStringLength == IngestLimits().maxStringLength)
    }

    @Test func retentionComesFromTheFileTheEnvironmentOrTheFlagAndMustBePositive() throws {
        let (folder, path) = try file(#"{"retentionDays": 180}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ServerConfiguration.load(path: path, environment: [:]).retentionDays == 180)
        #expect(try ServerConfiguration.load(path: path, environment: ["LEAKHISTORY_RETENTION_DAYS": "30"]).retentionDays == 30)
        #expect(try ServerConfiguration.load(path: path, environment: ["LEAKHISTORY_RETENTION_DAYS": "0"]).retentionDays == nil)
        #expect(ServerConfiguration().retentionDays == nil)
        let (badFolder, badPath) = try file(#"{"retentionDays": -3}"#)
        defer { try? FileManager.default.removeItem(at: badFolder) }
        let refused = #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(path: badPath, environment: [:]) }
        #expect(refused?.description.contains("retentionDays -3") == true)
    }

    @Test func tokenMemoryComesFromTheFileAndCannotBeNegative() throws {
        let (folder, path) = try file(#"{"tokenMemorySeconds": 0}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let off = try ServerConfiguration.load(path: path, environment: [:])
        #expect(off.tokenMemorySeconds == 0)
        #expect(off.storeOptions.tokenMemory == .zero)
        #expect(ServerConfiguration().storeOptions.tokenMemory == .seconds(10))
        let (badFolder, badPath) = try file(#"{"tokenMemorySeconds": -1}"#)
        defer { try? FileManager.default.removeItem(at: badFolder) }
        let refused = #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(path: badPath, environment: [:]) }
        #expect(refused?.description.contains("tokenMemorySeconds -1") == true)
    }

    @Test func readerMemoryMapComesFromTheFileInMiBAndHasBounds() throws {
        #expect(ServerConfiguration().storeOptions.readerMemoryMapBytes == 1 << 30)
        let (folder, path) = try file(#"{"readerMemoryMapMiB": 0}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try ServerConfiguration.load(path: path, environment: [:]).storeOptions.readerMemoryMapBytes == 0)
        let (badFolder, badPath) = try file(#"{"readerMemoryMapMiB": -5}"#)
        defer { try? FileManager.default.removeItem(at: badFolder) }
        let refused = #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(path: badPath, environment: [:]) }
        #expect(refused?.description.contains("readerMemoryMapMiB -5") == true)
    }

    @Test func mistakesNameTheSettingAtFault() throws {
        let (folder, path) = try file(#"{"prot": 9000}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let unknown = #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(path: path, environment: [:]) }
        #expect(unknown?.description.contains("leakhistory.json: prot: unknown setting") == true)
        let badPort = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(path: nil, environment: ["LEAKHISTORY_PORT": "eighty"])
        }
        #expect(badPort?.description == "LEAKHISTORY_PORT=eighty: expected a whole number")
        let missing = #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.load(path: "/nonexistent/leakhistory.json", environment: [:])
        }
        #expect(missing?.description == "the configuration file /nonexistent/leakhistory.json does not exist")
    }
}
