import LeakReport

/// Checks a decoded run against the server's limits and the rules JSON cannot express; each
/// refusal names the field, e.g. `checks[3].scenario: longer than 1024 characters`.
struct RunValidation {
    let limits: IngestLimits

    func validate(_ run: RunRecord, urlProject: String) throws {
        // A permission boundary as much as a format rule: the URL (and its token) name the project
        // written to, so a run of another project is refused as forbidden.
        guard run.project == urlProject else {
            throw HTTPFailure(403, "project_mismatch",
                              "project: the body names project \"\(clip(run.project))\" but the URL names \"\(urlProject)\"; "
                                  + "upload to /v1/projects/\(clip(run.project))/runs with that project's token")
        }
        try checkHex(run.commit, field: "commit")
        guard run.parents.count <= limits.maxParents else {
            throw invalid("parents: \(run.parents.count) parents, more than the limit of \(limits.maxParents)")
        }
        for (index, parent) in run.parents.enumerated() { try checkHex(parent, field: "parents[\(index)]") }
        try checkText(run.branch, field: "branch", allowEmpty: false)
        try checkText(run.environment, field: "environment", allowEmpty: false)
        try checkText(run.runKey, field: "runKey", allowEmpty: false)
        try checkText(run.tool?.name, field: "tool.name")
        try checkText(run.tool?.version, field: "tool.version")
        guard run.checks.count <= limits.maxChecksPerRun else {
            throw HTTPFailure.payloadTooLarge(
                "checks: \(run.checks.count) checks, more than the limit of \(limits.maxChecksPerRun) per run; split the run")
        }
        for (index, check) in run.checks.enumerated() {
            try validate(check, at: index)
        }
    }

    /// Field names are built only for a refusal: interpolating six of them for every check was
    /// most of validation's cost (callgrind).
    private func validate(_ check: CheckRecord, at index: Int) throws {
        var path: String { "checks[\(index)]" }
        try checkText(check.scenario, field: "\(path).scenario", allowEmpty: false)
        try checkText(check.type, field: "\(path).type", allowEmpty: false)
        try checkText(check.file, field: "\(path).file")
        try checkText(check.lifecycle, field: "\(path).lifecycle")
        try checkText(check.fingerprint, field: "\(path).fingerprint")
        try checkText(check.message, field: "\(path).message", limit: limits.maxMessageLength)
        guard (0...Int(Int32.max)).contains(check.line) else {
            throw invalid("\(path).line: expected 0 to \(Int32.max), found \(check.line)")
        }
        guard (0...Int(Int32.max)).contains(check.timeoutMs) else {
            throw invalid("\(path).timeoutMs: expected 0 to \(Int32.max), found \(check.timeoutMs)")
        }
        guard check.waitedMs.isFinite, check.waitedMs >= 0 else {
            throw invalid("\(path).waitedMs: expected 0 or more, found \(check.waitedMs)")
        }
        guard let steps = check.retainPath else { return }
        guard steps.count <= limits.maxRetainPathSteps else {
            throw HTTPFailure.payloadTooLarge(
                "\(path).retainPath: \(steps.count) steps, more than the limit of \(limits.maxRetainPathSteps)")
        }
        for (index, step) in steps.enumerated() {
            try checkText(step.holder, field: "\(path).retainPath[\(index)].holder")
            try checkText(step.property, field: "\(path).retainPath[\(index)].property")
        }
    }

    private func checkHex(_ sha: String, field: @autoclosure () -> String) throws {
        guard CommitID.isValid(sha) else {
            throw invalid("\(field()): expected a 40-digit hex commit id, found \"\(clip(sha))\"")
        }
    }

    private func checkText(_ text: String?, field: @autoclosure () -> String, allowEmpty: Bool = true,
                           limit: Int? = nil) throws {
        guard let text else { return }
        let limit = limit ?? limits.maxStringLength
        if !allowEmpty && text.isEmpty { throw invalid("\(field()): must not be empty") }
        // C strings end at NUL: a type "A\u0000B" would be stored whole but shown (and linked) as "A".
        // Scanned as contiguous bytes where the string has them: `utf8.contains` went a byte at
        // a time through the view's indices, most of validation's cost (callgrind).
        if text.utf8.withContiguousStorageIfAvailable({ $0.contains(0) }) ?? text.utf8.contains(0) {
            throw invalid("\(field()): contains a NUL character (\\u0000)")
        }
        // Unicode scalars, as JSON Schema's maxLength counts them; no more scalars than UTF-8
        // bytes, so a short enough byte count needs no counting.
        if text.utf8.count > limit, text.unicodeScalars.count > limit {
            throw invalid("\(field()): longer than \(limit) characters")
        }
    }

    private func invalid(_ message: String) -> HTTPFailure {
        HTTPFailure.badRequest(message, code: "invalid_report")
    }

    /// Keeps an echoed value short enough to read.
    private func clip(_ text: String) -> String {
        text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}
