import LeakReport

extension LeakStore {
    /// How far back `compare` walks parents, for the merge-base and for the nearest upload.
    public static let revisionSearchLimit = 1_000

    /// Resolves `base` and `head` (full ids, branch names or unique id prefixes), the
    /// merge-base of the two along the uploaded commits' parents, and the nearest first-parent
    /// ancestor of it (within `depth`) with a usable run in `environment` — one snapshot.
    /// - Throws: `LeakStoreError.projectNotFound`.
    public func compare(project: String, base: String, head: String, environment: String,
                        depth: Int) throws -> RevisionComparison {
        try read { db in
            let history = try ProjectHistory(db, project: project)
            let baseSide = try resolve(base, history), headSide = try resolve(head, history)
            var result = RevisionComparison(base: baseSide, head: headSide)
            guard let baseCommit = baseSide.commit, let headCommit = headSide.commit else { return result }
            result.mergeBase = try mergeBase(baseCommit, headCommit, history)
            var start = result.mergeBase ?? baseCommit
            if start == headCommit {
                // A push to the base branch: compare with the head's first parent, as the CLI does.
                result.onBaseBranch = true
                guard let parent = try parents(of: headCommit, history).first else { return result }
                start = parent
            }
            let usable = { (sha: String) throws -> Bool in try self.hasUsableRun(sha, environment: environment, history) }
            for (distance, candidate) in try firstParentLine(from: start, limit: depth, history).enumerated() where try usable(candidate) {
                result.compared = candidate
                result.distance = distance
                break
            }
            // The base branch's uploads after the merge-base, nearest first.
            if let mergeBase = result.mergeBase, !result.onBaseBranch, baseCommit != mergeBase, result.compared != nil {
                let line = try firstParentLine(from: baseCommit, limit: Self.revisionSearchLimit, history)
                if let end = line.firstIndex(of: mergeBase) {
                    let later = line[..<end].reversed()
                    if (result.distance ?? 0) > 0 { result.after = try later.first(where: usable) }
                }
            }
            return result
        }
    }

    private func resolve(_ revision: String, _ history: ProjectHistory) throws -> RevisionComparison.Resolution {
        let hex = revision.allSatisfy(\.isHexDigit)
        if hex && revision.count == 40 { return .found(commit: revision.lowercased(), match: .commit) }
        if let newest = try history.db.scalarText(
            sql: "SELECT sha FROM commits WHERE project_id = \(history.projectID) AND branch = \(revision) ORDER BY id DESC LIMIT 1") {
            return .found(commit: newest, match: .branch(revision))
        }
        guard hex, revision.count >= 4, revision.count < 40 else { return .unknown }
        var matches: [String] = []
        // Hex digits and nothing else, so the LIKE pattern holds no wildcard but the last.
        try history.db.query(sql: """
            SELECT sha FROM commits WHERE project_id = \(history.projectID) AND sha LIKE \(revision.lowercased() + "%") ORDER BY sha LIMIT 5
            """) { matches.append($0.string("sha") ?? "") }
        switch matches.count {
        case 0: return .unknown
        case 1: return .found(commit: matches[0], match: .prefix)
        default: return .ambiguous(matches)
        }
    }

    private func parents(of sha: String, _ history: ProjectHistory) throws -> [String] {
        var parents: [String] = []
        try history.db.query(sql: """
            SELECT p.parent_sha FROM commit_parents p JOIN commits c ON c.id = p.commit_id
            WHERE c.project_id = \(history.projectID) AND c.sha = \(sha) ORDER BY p.position
            """) { parents.append($0.string("parent_sha") ?? "") }
        return parents
    }

    /// The first commit reached from `head`, breadth first, that is an ancestor of `base` (or
    /// `base` itself).
    private func mergeBase(_ base: String, _ head: String, _ history: ProjectHistory) throws -> String? {
        let ofBase = try ancestors(of: base, history)
        var queue = [head], seen: Set<String> = [head], index = 0
        while index < queue.count, index < Self.revisionSearchLimit {
            let sha = queue[index]
            index += 1
            if ofBase.contains(sha) { return sha }
            for parent in try parents(of: sha, history) where seen.insert(parent).inserted { queue.append(parent) }
        }
        return nil
    }

    private func ancestors(of sha: String, _ history: ProjectHistory) throws -> Set<String> {
        var queue = [sha], seen: Set<String> = [sha], index = 0
        while index < queue.count, index < Self.revisionSearchLimit {
            for parent in try parents(of: queue[index], history) where seen.insert(parent).inserted { queue.append(parent) }
            index += 1
        }
        return seen
    }

    private func firstParentLine(from sha: String, limit: Int, _ history: ProjectHistory) throws -> [String] {
        var line = [sha]
        while line.count < limit, let parent = try parents(of: line[line.count - 1], history).first, !line.contains(parent) {
            line.append(parent)
        }
        return line
    }

    private func hasUsableRun(_ sha: String, environment: String, _ history: ProjectHistory) throws -> Bool {
        guard let id = try history.commitID(sha) else { return false }
        return try history.runCounts(commitID: id, environment: environment).usable > 0
    }
}
