import Foundation

/// A process's resident memory as Linux reports it in `/proc/<pid>/status`.
struct ProcessMemory {
    /// `VmRSS`: resident now, in KiB.
    var rssKiB: Int
    /// `VmHWM`: the peak resident size so far, in KiB.
    var hwmKiB: Int

    /// This process's figures.
    static func current() -> ProcessMemory { of(pid: nil) ?? ProcessMemory(rssKiB: 0, hwmKiB: 0) }

    /// The figures of `pid` (this process when nil); nil when the process is gone.
    static func of(pid: Int32?) -> ProcessMemory? {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "") ?? 0
        }
        return ProcessMemory(rssKiB: field("VmRSS"), hwmKiB: field("VmHWM"))
    }
}
