import HearthCore

/// Writes exported users as Firebase's CLI lays them out, a page at a time: `{"users": [...]}`
/// with one indented object per user, or one CSV line per user. The text of a file is
/// `opening`, then `encode` of each page, then `closing`.
package struct UserFileEncoder {
    package let format: UserFileFormat
    private var count = 0

    package init(format: UserFileFormat) {
        self.format = format
    }

    /// The text before the first user.
    package var opening: String { format == .json ? "{\"users\": [" : "" }

    /// The text after the last user.
    package var closing: String { format == .json ? "\n]}\n" : "" }

    /// The text of `users` (as `accounts:batchGet` gives them), following those encoded before.
    package mutating func encode(_ users: [JSONValue]) -> String {
        var text = ""
        for user in users {
            let exported = ExportedUser(user)
            switch format {
            case .json: text += (count == 0 ? "\n" : ",\n") + JSONWriter.string(exported.json, pretty: true)
            case .csv: text += exported.csvLine + "\n"
            }
            count += 1
        }
        return text
    }
}
