import Foundation

/// Reads a leak report: one JSON check a line. Blank lines are skipped; a bad line is an error
/// that names the report and the line number, so the reader can go straight to it.
///
/// ```swift
/// let checks = try NDJSONReader.checks(in: data, source: "report.ndjson")
/// ```
public enum NDJSONReader {
    /// Decodes every non-blank line of `data` as a `CheckRecord`.
    /// - Parameter source: what to call the data in errors, usually its path.
    /// - Throws: `ReportLineError` for the first line that is not a valid check.
    public static func checks(in data: Data, source: String) throws(ReportLineError) -> [CheckRecord] {
        let decoder = JSONDecoder()
        var checks: [CheckRecord] = []
        var lineNumber = 0
        var start = data.startIndex
        while start < data.endIndex {
            lineNumber += 1
            let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
            let line = data[start..<end]
            start = end < data.endIndex ? data.index(after: end) : end
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) {
                continue
            }
            guard String(validating: line, as: UTF8.self) != nil else {
                throw ReportLineError(source: source, line: lineNumber, problem: "not valid UTF-8")
            }
            do {
                checks.append(try decoder.decode(CheckRecord.self, from: line))
            } catch let error as DecodingError {
                throw ReportLineError(source: source, line: lineNumber, problem: error.keyPathDescription)
            } catch {
                throw ReportLineError(source: source, line: lineNumber, problem: "\(error)")
            }
        }
        return checks
    }

    /// Reads and decodes the report at `path`.
    public static func checks(atPath path: String) throws(ReportLineError) -> [CheckRecord] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReportLineError(source: path, line: 0, problem: "cannot read the file: \(error.localizedDescription)")
        }
        return try checks(in: data, source: path)
    }
}

/// A report line that could not be read: `report.ndjson:12: type: expected a string`.
public struct ReportLineError: Error, Sendable, CustomStringConvertible {
    public var source: String
    /// 1-based; 0 when the file itself could not be read.
    public var line: Int
    public var problem: String

    public var description: String {
        line > 0 ? "\(source):\(line): \(problem)" : "\(source): \(problem)"
    }
}
