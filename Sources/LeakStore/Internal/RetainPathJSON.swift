import LeakReport

/// A retain path as the JSON text stored in `checks.retain_path`:
/// `[{"holder":"App.Coordinator","kind":"collection","property":"children[0]"}]`.
/// Written by hand because it runs once per check on the ingest path.
enum RetainPathJSON {
    static func text(_ steps: [RetainPathStep]) -> String {
        var out = "["
        for (index, step) in steps.enumerated() {
            if index > 0 { out += "," }
            out += "{\"holder\":"
            appendString(step.holder, to: &out)
            out += ",\"kind\":"
            appendString(step.kind.rawValue, to: &out)
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
}
