import Foundation
import HearthCore

/// The two kinds of user file that Firebase's CLI reads and writes (auth spec §9.4, §9.5).
package enum UserFileFormat: String, CaseIterable, Sendable {
    case json, csv

    /// The format the extension of `file` names, if any.
    package init?(extensionOf file: String) {
        self.init(rawValue: URL(fileURLWithPath: file).pathExtension.lowercased())
    }
}

/// Why a user file cannot be read or written. Users are numbered from 0 in file order, the way
/// the server numbers the users of a batch.
package enum UserFileError: Error, CustomStringConvertible {
    case unreadable(path: String)
    case unwritable(path: String, reason: String)
    /// A JSON file that does not parse or is not `{"users": [...]}`.
    case notAUserFile(path: String, reason: String)
    /// CSV text that is not RFC 4180 (an unterminated quoted field, text after a closing quote).
    case malformedCSV(line: Int, reason: String)
    /// A user Firebase's CLI would refuse; `line` is where a CSV record starts.
    case invalidUser(index: Int, line: Int?, reason: String)
    case empty(path: String)

    package var description: String {
        switch self {
        case .unreadable(let path): "cannot read \(path)"
        case .unwritable(let path, let reason): "cannot write \(path): \(reason)"
        case .notAUserFile(let path, let reason): "\(path) is not a user file: \(reason)"
        case .malformedCSV(let line, let reason): "line \(line): \(reason)"
        case .invalidUser(let index, let line?, let reason): "user at index \(index) (line \(line)): \(reason)"
        case .invalidUser(let index, nil, let reason): "user at index \(index): \(reason)"
        case .empty(let path): "\(path) holds no users"
        }
    }
}

/// Base64 as user files and the server carry bytes: read in either alphabet, padded or not;
/// written in the standard alphabet to files and in the URL-safe one to the server, as
/// Firebase's CLI does.
package enum UserFileBase64 {
    /// The bytes of `text`, or `nil` when it is not base64.
    package static func decode(_ text: String) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        if standard.count % 4 != 0 { standard += String(repeating: "=", count: 4 - standard.count % 4) }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    package static func standard(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    package static func urlSafe(_ bytes: [UInt8]) -> String {
        String(standard(bytes).map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}

extension JSONValue {
    /// An object of the pairs whose value is not `nil`, in order.
    package static func compactObject(_ pairs: [(String, JSONValue?)]) -> JSONValue {
        .object(pairs.compactMap { key, value in value.map { JSONMember(key: key, value: $0) } })
    }

    /// The text of a string value.
    package var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }
}
