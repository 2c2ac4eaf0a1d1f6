import Foundation

/// A stable name for the root cause of a leak: a hash of the leaked type and its normalised
/// retain path, equal across runs, processes and machines, so one leak seen in many scenarios
/// and many builds groups as one.
///
/// ```swift
/// let fingerprint = LeakFingerprint.cycle([
///     RetainPathStep(holder: "App.ProfileViewModel", property: "coordinator", kind: .strong),
///     RetainPathStep(holder: "App.MainCoordinator", property: "children[0]", kind: .collection),
/// ])
/// fingerprint.value   // 16 lowercase hex digits
/// ```
///
/// Normalisation keeps what names the leak and drops what changes between runs: addresses
/// (`(unknown context at $…)` in local type names), collection indices and dictionary keys
/// (`children[3]` → `children[*]`), compiler-generated closure numbers (`closure #2` →
/// `closure`), lazy storage prefixes, and the step kinds (whether a reference is known to be
/// strong depends on the platform's metadata). A cycle is rotated to its smallest step first, so
/// the same cycle gives the same fingerprint whichever of its objects leaked.
///
/// The hash is FNV-1a, 64 bits: a few lines with no dependency, unseeded (Swift's `Hasher` is
/// seeded per process), and ample for grouping — fingerprints are not a security boundary.
public struct LeakFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// 16 lowercase hex digits.
    public let value: String

    public var description: String { value }

    /// The fingerprint of a retain cycle: `steps` lead from an object back to itself.
    public static func cycle(_ steps: [RetainPathStep]) -> LeakFingerprint {
        let edges = steps.map(normalizedEdge)
        let start = canonicalRotation(of: edges)
        let rotated = Array(edges[start...] + edges[..<start])
        return LeakFingerprint(hashing: ["cycle"] + rotated)
    }

    /// The fingerprint of an object of `type` held through `steps` from a root outside it.
    public static func path(_ steps: [RetainPathStep], to type: String) -> LeakFingerprint {
        LeakFingerprint(hashing: ["path", normalizedType(type)] + steps.map(normalizedEdge))
    }

    /// The fingerprint of a leak with no path found: the type and the suspects named instead
    /// (`holder.property`), in any order.
    public static func unexplained(type: String, suspects: [String] = []) -> LeakFingerprint {
        let normalized = suspects.map { normalizedProperty(normalizedType($0)) }.sorted()
        return LeakFingerprint(hashing: ["unexplained", normalizedType(type)] + normalized)
    }

    /// A fingerprint read back from a report.
    public init(value: String) {
        self.value = value
    }

    private init(hashing parts: [String]) {
        // The unit separator cannot occur in type or property names, so parts never run together.
        let text = parts.joined(separator: "\u{1F}")
        let digits = String(Self.fnv1a64(Array(text.utf8)), radix: 16)
        value = String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// FNV-1a, 64-bit: offset basis 0xcbf29ce484222325, prime 0x100000001b3.
    public static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// `Tests.(unknown context at $55d2a1).Node` → `Tests.Node`; `closure #2 in f()` → `closure in f()`.
    public static func normalizedType(_ name: String) -> String {
        var result = droppingAnonymousContexts(name)
        // Drop the number after every `closure #`.
        var output = ""
        var rest = Substring(result)
        while let range = rest.range(of: "closure #") {
            output += rest[..<range.lowerBound] + "closure"
            rest = rest[range.upperBound...].drop(while: \.isNumber)
        }
        result = output + rest
        return result
    }

    /// `RxSwift.(unknown context at $7f3a).SinkDisposer` → `RxSwift.SinkDisposer`: the context
    /// `String(reflecting:)` gives a private or local type, whose address changes between runs.
    public static func droppingAnonymousContexts(_ name: String) -> String {
        var result = name
        while let range = result.range(of: "(unknown context at $") {
            guard let close = result[range.upperBound...].firstIndex(of: ")") else { break }
            var end = result.index(after: close)
            if end < result.endIndex, result[end] == "." { end = result.index(after: end) }
            result.removeSubrange(range.lowerBound..<end)
        }
        return result
    }

    /// `children[3].owner` → `children[*].owner`; `$__lazy_storage_$_handler` → `handler`.
    public static func normalizedProperty(_ property: String) -> String {
        var result = ""
        var depth = 0
        for character in property.replacingAll("$__lazy_storage_$_", with: "") {
            switch character {
            case "[":
                if depth == 0 { result += "[*]" }
                depth += 1
            case "]":
                depth = max(0, depth - 1)
            default:
                if depth == 0 { result.append(character) }
            }
        }
        return result
    }

    private static func normalizedEdge(_ step: RetainPathStep) -> String {
        normalizedType(step.holder) + "." + normalizedProperty(normalizedType(step.property))
    }

    /// The index of the lexicographically smallest rotation.
    private static func canonicalRotation(of edges: [String]) -> Int {
        guard edges.count > 1 else { return 0 }
        var best = 0
        for candidate in 1..<edges.count {
            for offset in 0..<edges.count {
                let a = edges[(candidate + offset) % edges.count]
                let b = edges[(best + offset) % edges.count]
                if a != b {
                    if a < b { best = candidate }
                    break
                }
            }
        }
        return best
    }
}

private extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        var output = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            output += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return output + rest
    }
}
