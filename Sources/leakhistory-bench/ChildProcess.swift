import Foundation

/// Runs a child process to its end and collects what it printed: the one place the bench
/// spawns git and the CLI.
enum ChildProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `executable` with `arguments` in `directory`, with exactly `environment`, feeding it
    /// `input` (or nothing) on standard input.
    static func run(_ executable: String, _ arguments: [String], in directory: URL, environment: [String: String],
                    input: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = environment
        let output = Pipe(), errors = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data(input.utf8))
            stdin.fileHandleForWriting.closeFile()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self),
                      stderr: String(decoding: errorData, as: UTF8.self))
    }
}
