// Appends checks to a leak report, for the test that several processes share one report file.
// Usage: ReportAppendProbe PATH WRITER-ID COUNT MESSAGE-BYTES
import Foundation
import LeakReport

let arguments = CommandLine.arguments
guard arguments.count == 5, let count = Int(arguments[3]), let messageBytes = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: ReportAppendProbe PATH WRITER-ID COUNT MESSAGE-BYTES\n".utf8))
    exit(2)
}
let writer: NDJSONWriter
do {
    writer = try NDJSONWriter(path: arguments[1])
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
let padding = String(repeating: "x", count: messageBytes)
for sequence in 0..<count {
    let check = CheckRecord(
        scenario: "\(arguments[2])/\(sequence)", file: "Probe.swift", line: sequence, type: "Probe.Object",
        outcome: .leaked, waitedMs: 1, timeoutMs: 2000, message: padding)
    do {
        try writer.append(check)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
