/// The UTC calendar fields of a time (proleptic Gregorian calendar), by Howard Hinnant's
/// days-to-civil algorithm: the one date computation every dated format of Hearth uses (storage
/// rules' timestamps, Storage's RFC 3339 times, mail's `Date` header).
package struct CivilTime: Sendable, Equatable {
    package var year: Int64
    package var month: Int64
    package var day: Int64
    package var secondOfDay: Int64
    /// 1 (Monday) … 7 (Sunday).
    package var dayOfWeek: Int64
    /// 1 … 366.
    package var dayOfYear: Int64

    /// The fields of `seconds` since 1970-01-01T00:00:00Z.
    package init(secondsSinceEpoch seconds: Int64) {
        let days = seconds.floorDivided(by: 86_400)
        secondOfDay = seconds.floorModulo(86_400)
        // Days since 0000-03-01, split into 400-year eras, years of the era and days of the year.
        let shifted = days + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfMarchYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchMonth = (5 * dayOfMarchYear + 2) / 153
        day = dayOfMarchYear - (153 * marchMonth + 2) / 5 + 1
        month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        dayOfWeek = (days + 3).floorModulo(7) + 1
        dayOfYear = days - Self.daysSinceEpoch(year: year, month: 1, day: 1) + 1
    }

    /// Days from 1970-01-01 to the date.
    package static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = marchYear.floorDivided(by: 400)
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func days(inMonth month: Int64, of year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension Int64 {
    /// The quotient rounded toward negative infinity.
    package func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder in `0 ..< divisor` (`divisor` positive).
    package func floorModulo(_ divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
