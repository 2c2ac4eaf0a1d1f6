import Foundation
import LeakReport

/// A diff as a SARIF 2.1.0 log for code scanning (GitHub uploads it with
/// `github/codeql-action/upload-sarif`): one result per new root cause, at its first
/// occurrence, the other occurrences as related locations, the retain path as a code flow and
/// the fingerprint as a partial fingerprint, so the same leak keeps one alert across runs.
struct SARIFLog: Encodable {
    static let ruleID = "leakhistory/new-leak"
    static let schemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

    struct Message: Encodable { var text: String }

    struct ArtifactLocation: Encodable {
        var uri: String
        var uriBaseId: String?
    }

    struct Region: Encodable { var startLine: Int }

    struct PhysicalLocation: Encodable {
        var artifactLocation: ArtifactLocation
        var region: Region?
    }

    struct Location: Encodable {
        var id: Int?
        var physicalLocation: PhysicalLocation?
        var message: Message?
    }

    struct ThreadFlowLocation: Encodable { var location: Location }
    struct ThreadFlow: Encodable { var locations: [ThreadFlowLocation] }
    struct CodeFlow: Encodable {
        var message: Message
        var threadFlows: [ThreadFlow]
    }

    struct Result: Encodable {
        var ruleId = SARIFLog.ruleID
        var ruleIndex = 0
        var level = "error"
        var message: Message
        var locations: [Location]
        var relatedLocations: [Location]?
        var codeFlows: [CodeFlow]?
        var partialFingerprints: [String: String]
        var properties: Properties
    }

    /// A result's property bag: what it is about, and the gate's evidence for calling it new.
    struct Properties: Encodable {
        var types: [String]
        var scenarios: [String]
        var evidence: GateEvidence?
    }

    struct Rule: Encodable {
        struct Configuration: Encodable { var level: String }
        var id = SARIFLog.ruleID
        var name = "NewLeak"
        var shortDescription = Message(text: "An object this change leaks")
        var fullDescription = Message(text: "The object was still alive when its deallocation check ran at the head, and did not leak at the base.")
        var help = Message(text: "Follow the retain path to the reference that keeps the object alive (often a strong capture in a closure or a missing weak). If the leak is known and accepted for now, add a suppression: leakhistory suppress add.")
        var defaultConfiguration = Configuration(level: "error")
    }

    struct Driver: Encodable {
        var name = "LeakHistory"
        var version = LeakHistoryCLI.version
        var rules = [Rule()]
    }

    struct Tool: Encodable { var driver = Driver() }

    struct Run: Encodable {
        var tool = Tool()
        var originalUriBaseIds: [String: ArtifactLocation]?
        var results: [Result]
        var properties: [String: String]
    }

    var schema = SARIFLog.schemaURI
    var version = "2.1.0"
    var runs: [Run]

    enum CodingKeys: String, CodingKey {
        case schema = "$schema", version, runs
    }

    init(_ outcome: DiffOutcome) {
        let results = outcome.diff.groups.filter { $0.category == .new }.map { Self.result($0, outcome: outcome) }
        var properties = ["environment": outcome.environment, "head": outcome.head]
        if let base = outcome.base?.commit { properties["base"] = base }
        if let link = outcome.dashboardURL { properties["dashboard"] = link }
        let root = outcome.repositoryRoot.map { ArtifactLocation(uri: URL(fileURLWithPath: $0, isDirectory: true).absoluteString) }
        runs = [Run(originalUriBaseIds: root.map { ["%SRCROOT%": $0] }, results: results, properties: properties)]
    }

    /// The log, pretty-printed with sorted keys.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self) + "\n"
    }

    private static func result(_ group: LeakGroup, outcome: DiffOutcome) -> Result {
        var text = "New leak: \(group.title)."
        if let path = group.readablePath { text += " Retain path: \(path)." }
        if let evidence = group.evidence { text += " Why: \(evidence.summary)." }
        let related = group.others.enumerated().map { index, occurrence in
            Location(id: index + 1, physicalLocation: place(occurrence.file, occurrence.line, outcome: outcome),
                     message: Message(text: "\(occurrence.type) also leaks in \(occurrence.scenario)"))
        }
        // The path's parts as every output prints them, one location each; a step not proven
        // strong says so, and the flow is a possible retain path.
        let flow = group.retainPath.flatMap { steps -> [CodeFlow]? in
            guard !steps.isEmpty else { return nil }
            let locations = RetainPathStep.readableFlow(steps, leakedType: group.pathType ?? "").map { part in
                ThreadFlowLocation(location: Location(message: Message(text: part.text + (part.isProven ? "" : " (possible)"))))
            }
            let title = RetainPathStep.isProven(steps) ? "Retain path" : "Possible retain path"
            return [CodeFlow(message: Message(text: title), threadFlows: [ThreadFlow(locations: locations)])]
        }
        return Result(
            message: Message(text: text),
            locations: [Location(physicalLocation: place(group.file, group.line, outcome: outcome))],
            relatedLocations: related.isEmpty ? nil : related,
            codeFlows: flow,
            partialFingerprints: group.fingerprint.map { ["leakFingerprint/v1": $0] }
                ?? ["leakKey/v1": "\(group.types.joined(separator: ",")) in \(group.scenarios.joined(separator: ","))"],
            properties: Properties(types: group.types, scenarios: group.scenarios, evidence: group.evidence))
    }

    /// A file inside the repository is relative to `%SRCROOT%`; anything else is a `file:` URI.
    private static func place(_ file: String, _ line: Int, outcome: DiffOutcome) -> PhysicalLocation {
        let relative = outcome.relativePath(file)
        let artifact: ArtifactLocation
        if relative.hasPrefix("/") {
            artifact = ArtifactLocation(uri: URL(fileURLWithPath: relative).absoluteString)
        } else {
            let encoded = relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative
            artifact = ArtifactLocation(uri: encoded, uriBaseId: outcome.repositoryRoot == nil ? nil : "%SRCROOT%")
        }
        return PhysicalLocation(artifactLocation: artifact, region: line >= 1 ? Region(startLine: line) : nil)
    }
}
