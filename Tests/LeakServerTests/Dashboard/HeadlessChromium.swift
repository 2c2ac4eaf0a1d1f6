import Foundation

/// Debian's `chromium` run headless, for the dashboard's browser tests: the DOM a page builds
/// (`--dump-dom`) and a screenshot of it.
struct HeadlessChromium {
    let executable: URL

    /// The first `chromium` or `chromium-browser` on `PATH`, or nil.
    static func find() -> HeadlessChromium? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return HeadlessChromium(executable: candidate) }
            }
        }
        return nil
    }

    /// What to say when it is missing: the browser tests fail rather than skip.
    static let missing = "chromium is not installed, so the dashboard cannot be loaded in a browser: run `make deps` "
        + "(it installs Debian's chromium through .ci/install-deps)"

    /// The serialized DOM after the page loaded.
    func dumpDOM(_ url: String) throws -> String {
        String(decoding: try run(["--dump-dom", url]), as: UTF8.self)
    }

    /// Writes a PNG of the page at 1200×900 to `file`.
    func screenshot(_ url: String, to file: URL) throws {
        try? FileManager.default.removeItem(at: file)
        _ = try run(["--screenshot=\(file.path)", "--window-size=1200,900", "--hide-scrollbars", url])
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw ClientError("chromium wrote no screenshot of \(url) to \(file.path)")
        }
    }

    private func run(_ arguments: [String]) throws -> Data {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = executable
        // `--no-sandbox`: tests run as root in CI containers, where the sandbox cannot start.
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--no-first-run", "--user-data-dir=\(profile.path)"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ClientError("chromium \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return data
    }
}
