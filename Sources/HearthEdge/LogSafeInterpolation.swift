import Logging

/// Text from outside Hearth (an email, a name, a path, a URL, an error quoting a request) as a
/// log line may carry it: written `"\(logSafe: email)"`, in a message or a metadata value.
///
/// Control characters and line or paragraph separators become Swift escapes (`\n`, `\r`, `\t`,
/// `\u{1B}`) and a backslash becomes `\\`, so nothing a client sends can end a line early, forge
/// the next one, or drive the terminal that shows the log.
package enum LogSafe {
    package static func escaped(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                switch scalar.properties.generalCategory {
                case .control, .lineSeparator, .paragraphSeparator:
                    escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                default: escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }
}

extension DefaultStringInterpolation {
    /// Appends `value` escaped by ``LogSafe``: for log messages.
    package mutating func appendInterpolation<Value>(logSafe value: Value) {
        appendLiteral(LogSafe.escaped(String(describing: value)))
    }
}

extension Logger.MetadataValue.StringInterpolation {
    /// Appends `value` escaped by ``LogSafe``: for log metadata values.
    package mutating func appendInterpolation<Value>(logSafe value: Value) {
        appendLiteral(LogSafe.escaped(String(describing: value)))
    }
}
