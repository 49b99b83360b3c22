import HearthCore

/// Dates in the form of RFC 5322 §3.3, as the `Date` header field wants them.
enum MailDate {
    /// Indexed by ``CivilTime/dayOfWeek`` less one.
    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since 1970 in UTC, e.g. `Tue, 03 Mar 2026 14:05:09 +0000`.
    static func format(_ seconds: Int64) -> String {
        let civil = CivilTime(secondsSinceEpoch: seconds)
        let time = civil.secondOfDay
        return "\(weekdays[Int(civil.dayOfWeek) - 1]), \(twoDigits(civil.day)) \(months[Int(civil.month) - 1]) \(civil.year) "
            + "\(twoDigits(time / 3600)):\(twoDigits(time / 60 % 60)):\(twoDigits(time % 60)) +0000"
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
