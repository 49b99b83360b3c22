import HearthCore

/// Times as Storage writes them: RFC 3339 in UTC with exactly three fractional digits
/// (`2020-09-18T00:31:33.328Z`), the only form the Apple SDK parses.
enum StorageTimestamp {
    static func format(milliseconds: Int64) -> String {
        let civil = CivilTime(secondsSinceEpoch: milliseconds.floorDivided(by: 1000))
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let time = civil.secondOfDay
        return "\(pad(civil.year, 4))-\(pad(civil.month, 2))-\(pad(civil.day, 2))T\(pad(time / 3600, 2)):\(pad(time / 60 % 60, 2))"
            + ":\(pad(time % 60, 2)).\(pad(milliseconds.floorModulo(1000), 3))Z"
    }
}
