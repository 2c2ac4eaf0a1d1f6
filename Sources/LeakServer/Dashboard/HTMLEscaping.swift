/// The one escaping function of the dashboard, and the `HTML` fragment type that applies it to
/// every interpolated value.
///
/// Type names, scenarios, messages and branches come from uploads and may be hostile
/// (`<script>…`, `"><img onerror=…>`). Escaping `& < > " '` makes a value safe both as element
/// text and inside a quoted attribute, so one function serves both contexts.
enum HTMLEscaping {
    /// `value` with `&`, `<`, `>`, `"` and `'` replaced by character references.
    ///
    /// ```swift
    /// HTMLEscaping.escape("<b title=\"x\">") // "&lt;b title=&quot;x&quot;&gt;"
    /// ```
    static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

/// A fragment of HTML. Interpolated `String`s are escaped with `HTMLEscaping.escape`;
/// interpolated `HTML` is kept as it is; numbers print as they are.
///
/// ```swift
/// let name = "<script>"
/// let row: HTML = "<td title=\"\(name)\">\(name)</td>" // both escaped
/// ```
/// Literal text written in the source is trusted markup; only values are escaped.
struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup.
    private(set) var rendered: String

    init(stringLiteral value: String) { rendered = value }

    init(stringInterpolation: Interpolation) { rendered = stringInterpolation.rendered }

    /// Markup built elsewhere from trusted parts (for example a number formatted by the server).
    init(trusted markup: String) { rendered = markup }

    var description: String { rendered }

    /// The fragments one after another.
    static func joined<S: Sequence>(_ parts: S, separator: HTML = "") -> HTML where S.Element == HTML {
        HTML(trusted: parts.map(\.rendered).joined(separator: separator.rendered))
    }

    struct Interpolation: StringInterpolationProtocol {
        var rendered = ""

        init(literalCapacity: Int, interpolationCount: Int) { rendered.reserveCapacity(literalCapacity * 2) }

        mutating func appendLiteral(_ literal: String) { rendered += literal }

        /// A value from a report or a request: escaped.
        mutating func appendInterpolation(_ value: String) { rendered += HTMLEscaping.escape(value) }

        /// An optional value: escaped, nothing when nil.
        mutating func appendInterpolation(_ value: String?) { rendered += HTMLEscaping.escape(value ?? "") }

        /// Markup: kept.
        mutating func appendInterpolation(_ fragment: HTML) { rendered += fragment.rendered }

        mutating func appendInterpolation(_ number: Int) { rendered += String(number) }

        /// A coordinate, with at most one decimal.
        mutating func appendInterpolation(_ number: Double) {
            rendered += String((number * 10).rounded() / 10)
        }
    }
}
