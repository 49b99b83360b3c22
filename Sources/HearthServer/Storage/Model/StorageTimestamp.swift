/// Times as Storage writes them: RFC 3339 in UTC with exactly three fractional digits
/// (`2020-09-18T00:31:33.328Z`), the only form the Apple SDK parses.
enum StorageTimestamp {
    static func format(milliseconds: Int64) -> String {
        let days = Int(milliseconds.floorDivided(by: 86_400_000))
        let dayMilliseconds = Int(milliseconds - Int64(days) * 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let hours = dayMilliseconds / 3_600_000
        let minutes = dayMilliseconds / 60_000 % 60
        let seconds = dayMilliseconds / 1000 % 60
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2))."
            + "\(pad(dayMilliseconds % 1000, 3))Z"
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// days-to-civil algorithm).
    private static func civilDate(daysSinceEpoch: Int) -> (year: Int, month: Int, day: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return self % divisor < 0 ? quotient - 1 : quotient
    }
}
