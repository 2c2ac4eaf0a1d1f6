/// The two sides of a diff as the user wrote them: `main..HEAD`, `main...HEAD`, `main` (against
/// HEAD), or `--base`/`--head`.
struct RevisionRange: Sendable, Equatable {
    var base: String
    var head: String

    /// Parses `A..B`, `A...B` or a single `A` (meaning `A..HEAD`). Either side may be empty
    /// (`..B`, `A..`), meaning HEAD, as git reads it.
    init(parsing text: String) throws(CommandFailure) {
        let separator = text.contains("...") ? "..." : (text.contains("..") ? ".." : nil)
        guard let separator else {
            guard !text.isEmpty else { throw CommandFailure("The revision range is empty; write it as main..HEAD.", code: .usage) }
            self.init(base: text, head: "HEAD")
            return
        }
        let sides = text.components(separatedBy: separator)
        guard sides.count == 2 else {
            throw CommandFailure("Cannot read the revision range '\(text)'; write it as BASE..HEAD, e.g. main..HEAD.", code: .usage)
        }
        self.init(base: sides[0].isEmpty ? "HEAD" : sides[0], head: sides[1].isEmpty ? "HEAD" : sides[1])
    }

    init(base: String, head: String) {
        self.base = base
        self.head = head
    }
}
