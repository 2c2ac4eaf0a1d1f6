import Foundation

/// ISO 8601 timestamps as reports write them: UTC, millisecond precision, `Z` suffix.
public enum ReportTimestamp {
    /// `2026-11-30T02:10:57.123Z`. Written by hand: a report line is on every check's hot path.
    public static func string(from date: Date) -> String {
        let totalMs = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var seconds = time_t(totalMs.floorDiv(1000))
        let ms = Int(totalMs - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = Int(parts.tm_year) + 1900
        if (0...9999).contains(year) {
            // Digits written into one 24-byte buffer: concatenating eight padded Strings cost
            // ~10,000 instructions a call (callgrind), on every stored check.
            return String(unsafeUninitializedCapacity: 24) { buffer in
                func put(_ value: Int, _ width: Int, at start: Int) {
                    var rest = value
                    for offset in stride(from: start + width - 1, through: start, by: -1) {
                        buffer[offset] = UInt8(ascii: "0") + UInt8(rest % 10)
                        rest /= 10
                    }
                }
                put(year, 4, at: 0)
                buffer[4] = UInt8(ascii: "-")
                put(Int(parts.tm_mon) + 1, 2, at: 5)
                buffer[7] = UInt8(ascii: "-")
                put(Int(parts.tm_mday), 2, at: 8)
                buffer[10] = UInt8(ascii: "T")
                put(Int(parts.tm_hour), 2, at: 11)
                buffer[13] = UInt8(ascii: ":")
                put(Int(parts.tm_min), 2, at: 14)
                buffer[16] = UInt8(ascii: ":")
                put(Int(parts.tm_sec), 2, at: 17)
                buffer[19] = UInt8(ascii: ".")
                put(ms, 3, at: 20)
                buffer[23] = UInt8(ascii: "Z")
                return 24
            }
        }
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-"
            + pad(Int(parts.tm_mday), 2) + "T" + pad(Int(parts.tm_hour), 2) + ":"
            + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2) + "." + pad(ms, 3) + "Z"
    }

    /// `date` at the millisecond precision reports keep, so that a record equals itself read back.
    public static func normalized(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// Parses `2026-11-30T02:10:57Z`, `…57.123Z` or `…57.123+01:00`; nil for anything else.
    public static func date(from text: String) -> Date? {
        if let date = try? Date(text, strategy: withFraction) { return normalized(date) }
        return (try? Date(text, strategy: Date.ISO8601FormatStyle())).map(normalized)
    }

    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

private extension Int64 {
    func floorDiv(_ divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}
