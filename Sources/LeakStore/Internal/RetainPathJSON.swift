import Foundation
import LeakReport

/// A retain path as the JSON text stored in `checks.retain_path`:
/// `[{"holder":"App.Coordinator","kind":"collection","property":"children[0]"}]`, with
/// `"possible":true` after the kind on a step not proven strong (rows stored before that member
/// existed hold proven paths only, and read so).
/// Written by hand because it runs once per check on the ingest path, and read by hand because a
/// diff reads it once per leak it shows.
enum RetainPathJSON {
    static func text(_ steps: [RetainPathStep]) -> String {
        var out = "["
        for (index, step) in steps.enumerated() {
            if index > 0 { out += "," }
            out += "{\"holder\":"
            appendString(step.holder, to: &out)
            out += ",\"kind\":"
            appendString(step.kind.rawValue, to: &out)
            if step.isPossible { out += ",\"possible\":true" }
            out += ",\"property\":"
            appendString(step.property, to: &out)
            out += "}"
        }
        return out + "]"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func appendString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// The steps of a stored retain path, read by hand: `JSONDecoder` was most of the time a
    /// diff showing a broken run's leaks took. The array of objects `text(_:)` writes is
    /// read in any key order, with white space and every string escape; anything else (nothing
    /// this server stores) is left to `JSONDecoder`, so that a path reads as it always did.
    static func steps(_ text: String) -> [RetainPathStep]? {
        var text = text
        let read = text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return reader.steps()
        }
        return read ?? (try? JSONDecoder().decode([RetainPathStep].self, from: Data(text.utf8)))
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0

        mutating func steps() -> [RetainPathStep]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var steps: [RetainPathStep] = []
            if take(UInt8(ascii: "]")) { return end() ? steps : nil }
            repeat {
                guard let step = step() else { return nil }
                steps.append(step)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) && end() ? steps : nil
        }

        private mutating func step() -> RetainPathStep? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var holder: String?, property: String?, kind: RetainPathStep.Kind?, possible = false
            repeat {
                guard let name = string(), take(UInt8(ascii: ":")) else { return nil }
                if name == "possible" {
                    guard let value = boolean() else { return nil }
                    possible = value
                    continue
                }
                guard let value = string() else { return nil }
                switch name {
                case "holder": holder = value
                case "property": property = value
                case "kind":
                    guard let known = RetainPathStep.Kind(rawValue: value) else { return nil }
                    kind = known
                default: return nil
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")), let holder, let property, let kind else { return nil }
            return RetainPathStep(holder: holder, property: property, kind: kind, isPossible: possible)
        }

        /// A string literal: runs of bytes taken as they are, between escapes.
        private mutating func string() -> String? {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
            at += 1
            var out = ""
            while true {
                let run = at
                while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\") { at += 1 }
                out += String(decoding: UnsafeBufferPointer(rebasing: bytes[run..<at]), as: UTF8.self)
                guard at < bytes.count else { return nil }
                if bytes[at] == UInt8(ascii: "\"") { break }
                guard at + 1 < bytes.count else { return nil }
                let escape = bytes[at + 1]
                at += 2
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.unicodeScalars.append(Unicode.Scalar(escape))
                case UInt8(ascii: "n"): out += "\n"
                case UInt8(ascii: "r"): out += "\r"
                case UInt8(ascii: "t"): out += "\t"
                case UInt8(ascii: "b"): out += "\u{8}"
                case UInt8(ascii: "f"): out += "\u{c}"
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    // A character past the first plane comes as a surrogate pair.
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard bytes[at...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else { return nil }
                        at += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let character = Unicode.Scalar(scalar) else { return nil }
                    out.unicodeScalars.append(character)
                default: return nil
                }
            }
            at += 1
            skipSpace()
            return out
        }

        /// `true` or `false`, and the white space after it.
        private mutating func boolean() -> Bool? {
            for (word, value) in [("true", true), ("false", false)] where bytes[at...].starts(with: word.utf8) {
                at += word.utf8.count
                skipSpace()
                return value
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[at..<(at + 4)] {
                guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
                value = value << 4 | UInt32(digit)
            }
            at += 4
            return value
        }

        /// Takes `byte` (after any white space, and the white space after it) if it comes next.
        private mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            skipSpace()
            return true
        }

        private mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        private mutating func end() -> Bool {
            skipSpace()
            return at == bytes.count
        }
    }
}
