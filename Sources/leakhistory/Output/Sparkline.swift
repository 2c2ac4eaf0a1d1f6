/// `▁▂▅█`: a series drawn in one line of block characters, scaled from zero to its maximum.
enum Sparkline {
    static let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    static func draw(_ values: [Int]) -> String {
        guard let top = values.max(), top > 0 else { return String(repeating: blocks[0], count: values.count) }
        return String(values.map { value in
            blocks[min(blocks.count - 1, (value * (blocks.count - 1) + top / 2) / top)]
        })
    }
}
