/// A creative's or a slot's size in points.
package struct AdSize: Codable, Hashable, Sendable {
    package var w: Int
    package var h: Int

    package init(w: Int, h: Int) {
        self.w = w
        self.h = h
    }

    var area: Int { w * h }
}

/// What a decide request asks to fill: an exact size, or an adaptive banner of a width.
enum SlotRequest: Equatable, Sendable {
    case exact(AdSize)
    /// An anchored adaptive banner `width` wide and at most `maxHeight` tall: the largest
    /// creative that fits, to be centred in the slot.
    case adaptive(width: Int, maxHeight: Int)

    /// The tallest anchored adaptive banner, the height allowed when the request names none.
    static let adaptiveMaximumHeight = 90

    /// The index of the creative of `candidates` that fills this slot: one of its exact size, or
    /// for an adaptive slot the largest that fits (ties to the wider, then the first).
    func bestCreative(of candidates: [Creative]) -> Int? {
        switch self {
        case .exact(let size):
            return candidates.firstIndex { $0.w == size.w && $0.h == size.h }
        case .adaptive(let width, let maxHeight):
            var best: Int?
            for index in candidates.indices where candidates[index].w <= width && candidates[index].h <= maxHeight {
                let (candidate, current) = (candidates[index], best.map { candidates[$0] })
                if let current, (candidate.size.area, candidate.w) <= (current.size.area, current.w) { continue }
                best = index
            }
            return best
        }
    }
}
