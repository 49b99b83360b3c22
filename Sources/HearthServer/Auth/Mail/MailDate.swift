/// Dates in the form of RFC 5322 §3.3, as the `Date` header field wants them.
enum MailDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since 1970 in UTC, e.g. `Tue, 03 Mar 2026 14:05:09 +0000`.
    static func format(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let time = seconds - days * 86400
        // Days to a civil date (H. Hinnant's algorithm), with years starting in March.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = weekdays[Int(((days % 7) + 11) % 7)]
        return "\(weekday), \(twoDigits(day)) \(months[Int(month) - 1]) \(year) "
            + "\(twoDigits(time / 3600)):\(twoDigits(time / 60 % 60)):\(twoDigits(time % 60)) +0000"
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
