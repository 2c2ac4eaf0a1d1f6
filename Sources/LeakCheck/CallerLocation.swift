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

    init(_ fileID: StaticString, _ filePath: StaticString, _ line: UInt, _ column: UInt, _ function: StaticString) {
        self.init(
            fileID: fileID.description, filePath: filePath.description,
            line: Int(line), column: Int(column), function: function.description)
    }

    /// The file name without its folders, as reports store it: `ProfileTests.swift`.
    var fileName: String {
        fileID.split(separator: "/").last.map(String.init) ?? fileID
    }
}
