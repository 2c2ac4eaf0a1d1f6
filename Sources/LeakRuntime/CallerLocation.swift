import Foundation

/// Where a check was written: failures are recorded here, never at a line inside LeakCheck.
public struct CallerLocation: Sendable, Hashable {
    public var fileID: String
    public var filePath: String
    public var line: Int
    public var column: Int
    /// The function the call is in, e.g. `testLoads()`: part of XCTest scenario ids.
    public var function: String

    public init(fileID: String, filePath: String, line: Int, column: Int, function: String = "") {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
        self.function = function
    }

    package init(_ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt, _ function: StaticString) {
        self.init(
            fileID: fileID.description, filePath: filePath.description,
            line: Int(line), column: Int(column), function: function.description)
    }

    /// The file as reports store it: relative to the working directory when the file is inside
    /// it (`Tests/AppTests/ProfileTests.swift` under `swift test`, which CI annotations can point
    /// at), else just its name.
    package var reportedFile: String {
        let root = Self.workingDirectory.value
        if !root.isEmpty, filePath.hasPrefix(root) {
            return String(filePath.dropFirst(root.count))
        }
        return fileID.split(separator: "/").last.map(String.init) ?? fileID
    }

    /// The working directory with a trailing slash, read once.
    private static let workingDirectory = Lazy<String> {
        let path = FileManager.default.currentDirectoryPath
        return path.isEmpty ? "" : (path.hasSuffix("/") ? path : path + "/")
    }
}
