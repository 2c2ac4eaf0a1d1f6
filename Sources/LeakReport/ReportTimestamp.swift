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
        if let milliseconds = canonicalMilliseconds(text) {
            return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        // Foundation's ISO 8601 parser rolls an impossible date over ("4908-11-31" becomes
        // December 1st): the calendar fields are checked here first, whatever the form.
        guard hasValidCalendarFields(text) else { return nil }
        if let date = try? Date(text, strategy: withFraction) { return normalized(date) }
        return (try? Date(text, strategy: Date.ISO8601FormatStyle())).map(normalized)
    }

    /// Milliseconds since 1970 for the form reports write (`2026-11-30T02:10:57.123Z`, or without
    /// the fraction), read digit by digit; nil for any other form, left to `ISO8601FormatStyle`.
    /// Every check carries a timestamp, and the format style cost ~6,000 instructions a parse.
    /// `YYYY-MM-DD` at the start names a real day, and a `Thh:mm:ss` after it a real time.
    private static func hasValidCalendarFields(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ width: Int) -> Int? {
            guard start + width <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + width)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return false }
        guard bytes.count >= 19, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") else { return true }
        guard bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
        else { return false }
        return hour <= 23 && minute <= 59 && second <= 59
    }

    private static func canonicalMilliseconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count == 20 || bytes.count == 24, bytes[bytes.count - 1] == UInt8(ascii: "Z"),
                  bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                  bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
            else { return nil }
            func number(_ start: Int, _ width: Int) -> Int? {
                var value = 0
                for offset in start..<(start + width) {
                    let digit = Int(bytes[offset]) - Int(UInt8(ascii: "0"))
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            var ms = 0
            if bytes.count == 24 {
                guard bytes[19] == UInt8(ascii: "."), let fraction = number(20, 3) else { return nil }
                ms = fraction
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                  let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
                  (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
                  hour <= 23, minute <= 59, second <= 59
            else { return nil }
            let seconds = daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
            return Int64(seconds) * 1_000 + Int64(ms)
        }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
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
