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
            json.member("environment", environment)
            json.key("head")
            head.write(to: &json)
            json.member("project", project)
        }
        return json.data
    }
}

extension DiffResponse.Side {
    fileprivate func write(to json: inout JSONBytes) {
        json.object { json in
            json.member("commit", commit)
            json.member("runs", runs)
            if let suspectRuns {
                json.key("suspectRuns")
                json.array { json in
                    for run in suspectRuns {
                        json.object { json in
                            json.member("checks", run.checks)
                            json.member("errors", run.errors)
                            json.member("leaked", run.leaked)
                            json.member("runID", run.runID)
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
            json.member("baseStateFrom", baseStateFrom)
            json.member("category", category.rawValue)
            if let evidence {
                json.key("evidence")
                json.object { json in
                    json.member("commitsLookedAt", evidence.commitsLookedAt)
                    json.member("confirmedAtHead", evidence.confirmedAtHead)
                    json.member("headAttempts", evidence.headAttempts)
                    json.member("headLeakedAttempts", evidence.headLeakedAttempts)
                    json.member("headLeakedRuns", evidence.headLeakedRuns)
                    json.member("headRuns", evidence.headRuns)
                    if let others = evidence.otherEnvironments {
                        json.key("otherEnvironments")
                        json.array { json in
                            for other in others {
                                json.object { json in
                                    json.member("countedAttempts", other.countedAttempts)
                                    json.member("environment", other.environment)
                                    json.member("recentLeakedRuns", other.recentLeakedRuns)
                                    json.member("recentRuns", other.recentRuns)
                                }
                            }
                        }
                    }
                    json.member("recentLeakedRuns", evidence.recentLeakedRuns)
                    json.member("recentRuns", evidence.recentRuns)
                    json.member("sinceChange", evidence.sinceChange)
                    json.member("summary", evidence.summary)
                }
            }
            json.member("file", file)
            json.member("fingerprint", fingerprint)
            json.member("firstSeen", firstSeen)
            json.member("inheritedFrom", inheritedFrom)
            json.member("line", line)
            json.member("message", message)
            if let retainPath {
                json.key("retainPath")
                json.array { json in
                    for step in retainPath {
                        json.object { json in
                            json.member("holder", step.holder)
                            json.member("kind", step.kind.rawValue)
                            if step.isPossible { json.member("possible", true) }
                            json.member("property", step.property)
                        }
                    }
                }
            }
            json.member("scenario", scenario)
            json.member("suppressedBecause", suppressedBecause)
            if let suppression {
                json.key("suppression")
                json.object { json in
                    json.member("createdBy", suppression.createdBy)
                    json.member("expired", suppression.expired)
                    json.member("expiresAt", suppression.expiresAt)
                    json.member("id", suppression.id)
                    json.member("reason", suppression.reason)
                }
            }
            json.member("type", type)
        }
    }
}
