import Foundation

extension DiffResponse {
    /// The answer's JSON, byte for byte as `JSONEncoder` with `.sortedKeys` and
    /// `.withoutEscapingSlashes` (the server's) encodes it, written straight out: each member in
    /// its sorted place, an absent optional left out as the synthesized `Codable` leaves it out.
    /// A heavy diff's answer (300 entries, 46 KB) cost 10.8 M instructions through the encoder.
    /// `DiffResponseJSONTests` holds the two to the same bytes.
    public func json() -> Data {
        var json = JSONBytes(capacity: 512 + entries.count * 160)
        json.object { json in
            if let base {
                json.key("base")
                base.write(to: &json)
            }
            json.key("counts")
            json.object { json in
                for (name, count) in counts.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                    json.key(name)
                    json.int(count)
                }
            }
            json.key("entries")
            json.array { json in
                for entry in entries { entry.write(to: &json) }
            }
            json.key("environment")
            json.string(environment)
            json.key("head")
            head.write(to: &json)
            json.key("project")
            json.string(project)
        }
        return json.data
    }
}

extension DiffResponse.Side {
    fileprivate func write(to json: inout JSONBytes) {
        json.object { json in
            json.key("commit")
            json.string(commit)
            json.key("runs")
            json.int(runs)
            if let suspectRuns {
                json.key("suspectRuns")
                json.array { json in
                    for run in suspectRuns {
                        json.object { json in
                            json.key("checks")
                            json.int(run.checks)
                            json.key("errors")
                            json.int(run.errors)
                            json.key("leaked")
                            json.int(run.leaked)
                            json.key("runID")
                            json.int(run.runID)
                        }
                    }
                }
            }
        }
    }
}

extension LeakDiff.Entry {
    fileprivate func write(to json: inout JSONBytes) {
        json.object { json in
            if let baseStateFrom {
                json.key("baseStateFrom")
                json.string(baseStateFrom)
            }
            json.key("category")
            json.string(category.rawValue)
            json.key("file")
            json.string(file)
            if let fingerprint {
                json.key("fingerprint")
                json.string(fingerprint)
            }
            if let firstSeen {
                json.key("firstSeen")
                json.string(firstSeen)
            }
            if let inheritedFrom {
                json.key("inheritedFrom")
                json.string(inheritedFrom)
            }
            json.key("line")
            json.int(line)
            if let message {
                json.key("message")
                json.string(message)
            }
            if let retainPath {
                json.key("retainPath")
                json.array { json in
                    for step in retainPath {
                        json.object { json in
                            json.key("holder")
                            json.string(step.holder)
                            json.key("kind")
                            json.string(step.kind.rawValue)
                            json.key("property")
                            json.string(step.property)
                        }
                    }
                }
            }
            json.key("scenario")
            json.string(scenario)
            if let suppressedBecause {
                json.key("suppressedBecause")
                json.string(suppressedBecause)
            }
            if let suppression {
                json.key("suppression")
                json.object { json in
                    if let createdBy = suppression.createdBy {
                        json.key("createdBy")
                        json.string(createdBy)
                    }
                    json.key("expired")
                    json.bool(suppression.expired)
                    if let expiresAt = suppression.expiresAt {
                        json.key("expiresAt")
                        json.string(expiresAt)
                    }
                    if let id = suppression.id {
                        json.key("id")
                        json.int(id)
                    }
                    json.key("reason")
                    json.string(suppression.reason)
                }
            }
            json.key("type")
            json.string(type)
        }
    }
}
