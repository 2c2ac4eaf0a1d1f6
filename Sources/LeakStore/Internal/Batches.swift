/// Batches of values for statements with a fixed number of slots: one statement text (one
/// prepared statement, one plan) serves every batch, however many values a batch has.
extension Collection {
    /// The elements `size` at a time, in order; the last batch may be shorter.
    func batches(of size: Int) -> [SubSequence] {
        var batches: [SubSequence] = []
        var start = startIndex
        while start != endIndex {
            let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
            batches.append(self[start..<end])
            start = end
        }
        return batches
    }
}

extension BidirectionalCollection {
    /// The elements, then the last one again until there are `count` (a repeated value asks
    /// nothing new of an `IN` list). Empty stays empty.
    func padded(to count: Int) -> [Element] {
        guard let last else { return [] }
        return Array(self) + repeatElement(last, count: Swift.max(0, count - self.count))
    }
}
