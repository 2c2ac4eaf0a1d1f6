import Foundation

/// A fresh folder for one test's database, deleted when released.
final class TemporaryDatabase {
    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("leakstore-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("leaks.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
