import CLeakCheckSupport
import Foundation
import LeakReport

/// A method reference (`subscribe(onNext: validate)`): a closure the compiler makes by partially
/// applying a method's curry thunk to its receiver, which it captures. Its function is a
/// partial-apply forwarder whose symbol (from the image's `.symtab`) reads
/// `partial apply forwarder for implicit closure #2 (String) -> () in implicit closure #1 (Model)
/// -> (String) -> () in App.Model.init() -> App.Model`: the curry thunk's inner closure, in the
/// outer one that takes the receiver, in the function where the reference was written. The
/// method's own name is not in it; where it was written is.
enum MethodReference {
    private static let forwarderPrefix = "partial apply forwarder for implicit closure #"
    private static let curryThunk = " in implicit closure #"

    /// The step that names the method reference whose function is at `function`, made in
    /// `App.Model.init()`: holder `App.Model`, property `init()`, kind `methodReference`. Nil for
    /// any other function, or one whose image has no symbol for it.
    static func step(function: UInt) -> RetainPathStep? {
        var base: UInt = 0
        guard function != 0, let path = lc_image_path(function, &base), function > base else { return nil }
        let file = String(cString: path)
        guard let mangled = GlobalRoots.symbols(of: file.isEmpty ? "/proc/self/exe" : file).partialApplyForwarders[function - base]
        else { return nil }
        let demangled = mangled.withCString { name -> String? in
            guard let text = lc_demangle(name, strlen(name)) else { return nil }
            defer { free(text) }
            return String(cString: text)
        }
        guard let demangled, demangled.hasPrefix(forwarderPrefix), demangled.contains(curryThunk),
              let written = demangled.range(of: " in ", options: .backwards).map({ String(demangled[$0.upperBound...]) }),
              let (holder, property) = place(written)
        else { return nil }
        return RetainPathStep(holder: holder, property: property, kind: .methodReference)
    }

    /// `App.Model.start(with: Swift.Int, Swift.String) -> ()` → (`App.Model`, `start(with:_:)`); a
    /// module's top level, `App` → (`App`, ``). Nil when the text is not shaped so.
    static func place(_ function: String) -> (holder: String, property: String)? {
        let text = Array(function)
        // The argument list: the first parenthesis outside generic arguments, to its match.
        var angles = 0
        var open: Int?
        for (index, character) in text.enumerated() {
            if character == "<" { angles += 1 }
            if character == ">", index == 0 || text[index - 1] != "-" { angles -= 1 }
            if character == "(", angles == 0 {
                open = index
                break
            }
        }
        guard let open else { return function.contains(" ") ? nil : (function, "") }
        var depth = 0
        var close: Int?
        var labels: [String] = []
        var argument = ""
        for index in open..<text.count {
            let character = text[index]
            if "(<[".contains(character) { depth += 1 }
            // The `>` of an arrow (`->`) closes nothing.
            if ")>]".contains(character), character != ">" || text[index - 1] != "-" { depth -= 1 }
            if depth == 0 || (depth == 1 && character == ",") {
                let trimmed = argument.trimmingCharacters(in: .whitespaces)
                let parts = trimmed.split(separator: ":", maxSplits: 1)
                if !trimmed.isEmpty {
                    let label = parts.count == 2 && !parts[0].contains(" ") ? String(parts[0]) : "_"
                    labels.append(label + ":")
                }
                argument = ""
                if depth == 0 {
                    close = index
                    break
                }
                continue
            }
            if index > open { argument.append(character) }
        }
        let name = String(text[..<open])
        guard close != nil, let dot = name.lastIndex(of: ".") else { return nil }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]) + "(" + labels.joined() + ")")
    }
}
