/// Percentiles of a set of measurements.
struct Percentiles {
    private let sorted: [Double]

    init(_ values: [Double]) {
        sorted = values.sorted()
    }

    var count: Int { sorted.count }

    /// The value below which `fraction` of the measurements lie (nearest rank).
    func at(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    var median: Double { at(0.5) }
}

func format(_ value: Double, digits: Int = 2) -> String {
    let scale = pow10(digits)
    return String(Double(Int((value * scale).rounded())) / scale)
}

private func pow10(_ digits: Int) -> Double {
    (0..<digits).reduce(1) { value, _ in value * 10 }
}

/// `duration` in milliseconds.
func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}
