/// The attempts of one check: each attempt's released objects and their fates.
///
/// The first attempt's objects are the check's positions (one report line each); a later
/// attempt's object at the same position is the same object made again by the same factory.
struct CheckAttempts {
    private(set) var references: [[WeakReference]]
    private(set) var fates: [[ReleasePoller.Fate]]

    init(first references: [WeakReference], fates: [ReleasePoller.Fate]) {
        self.references = [references]
        self.fates = [fates]
    }

    var count: Int { references.count }

    /// Whether the check is confirmed by more attempts: an object of the first attempt outlived
    /// its deadline and `attempts` allows more than one. A clean check runs once.
    func needConfirming(upTo attempts: Int) -> Bool {
        attempts > 1 && fates[0].contains { if case .leaked = $0 { true } else { false } }
    }

    /// Adds further attempts' objects, waited for together: `fates` are theirs, in order.
    mutating func append(_ made: [[WeakReference]], fates: [ReleasePoller.Fate]) {
        var rest = fates[...]
        for attempt in made {
            references.append(attempt)
            self.fates.append(Array(rest.prefix(attempt.count)))
            rest = rest.dropFirst(attempt.count)
        }
    }

    /// One position of the check: the object and fate that stand for it (those of the first
    /// attempt that leaked it, so that what holds it is searched for once, on a live object;
    /// else the first attempt's), and how many attempts leaked it.
    struct Position {
        var reference: WeakReference
        var fate: ReleasePoller.Fate
        var leakedAttempts: Int
    }

    var positions: [Position] {
        references[0].indices.map { index in
            var position = Position(reference: references[0][index], fate: fates[0][index], leakedAttempts: 0)
            for (attempt, attemptFates) in fates.enumerated() where index < attemptFates.count {
                guard case .leaked = attemptFates[index] else { continue }
                if position.leakedAttempts == 0 {
                    position.reference = references[attempt][index]
                    position.fate = attemptFates[index]
                }
                position.leakedAttempts += 1
            }
            return position
        }
    }
}
