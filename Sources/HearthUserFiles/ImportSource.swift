import Foundation
import HearthCore

/// An import file, opened: it can be read through more than once (a first time to check every
/// user before anything is sent). A JSON file is parsed once and kept; a CSV file is read again
/// each time, from disk a chunk at a time or from memory.
package enum ImportSource {
    case json(users: [JSONValue], size: Int)
    case csvFile(path: String, size: Int)
    case csvText(bytes: [UInt8])

    /// The file at `path`.
    package init(path: String, format: UserFileFormat) throws(UserFileError) {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else {
            throw .unreadable(path: path)
        }
        switch format {
        case .csv:
            self = .csvFile(path: path, size: size)
        case .json:
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
            self = try Self.json([UInt8](data), name: path)
        }
    }

    /// A file's bytes, received rather than read from disk; `name` stands for its path in errors.
    package init(bytes: [UInt8], format: UserFileFormat, name: String) throws(UserFileError) {
        switch format {
        case .csv: self = .csvText(bytes: bytes)
        case .json: self = try Self.json(bytes, name: name)
        }
    }

    private static func json(_ bytes: [UInt8], name: String) throws(UserFileError) -> Self {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw .notAUserFile(path: name, reason: error.description)
        }
        guard case .array(let users)? = document["users"] else {
            throw .notAUserFile(path: name, reason: #"expected {"users": [...]}"#)
        }
        return .json(users: users, size: bytes.count)
    }

    /// The file's size in bytes.
    package var size: Int {
        switch self {
        case .json(_, let size), .csvFile(_, let size): size
        case .csvText(let bytes): bytes.count
        }
    }

    /// A reader from the first user on.
    package func reader(_ converter: ImportEntryConverter) throws(UserFileError) -> any ImportReader {
        switch self {
        case .json(let users, let size): JSONImportReader(users: users, size: size, converter: converter)
        case .csvFile(let path, _): CSVImportReader(records: try CSVReader(path: path), converter: converter)
        case .csvText(let bytes): CSVImportReader(records: CSVReader(bytes: bytes), converter: converter)
        }
    }

    /// How many users the file holds, each checked as it would be imported: the first invalid
    /// one is thrown, so that a file with one is refused before anything is sent.
    package func checkedCount(_ converter: ImportEntryConverter) throws(UserFileError) -> Int {
        var reader = try reader(converter)
        var total = 0
        while try reader.next() != nil { total += 1 }
        return total
    }
}

/// The users of an import file, one at a time as batchCreate entries.
package protocol ImportReader {
    /// The next user's entry, or `nil` after the last.
    mutating func next() throws(UserFileError) -> JSONValue?

    /// How far through the file reading has come, in bytes (for the progress bar).
    var bytesRead: Int { get }
}

/// The users of a parsed JSON file. Progress counts each user as an equal share of the file.
struct JSONImportReader: ImportReader {
    let users: [JSONValue]
    let size: Int
    let converter: ImportEntryConverter
    private var index = 0

    init(users: [JSONValue], size: Int, converter: ImportEntryConverter) {
        self.users = users
        self.size = size
        self.converter = converter
    }

    var bytesRead: Int { users.isEmpty ? size : size * index / users.count }

    mutating func next() throws(UserFileError) -> JSONValue? {
        guard index < users.count else { return nil }
        defer { index += 1 }
        do {
            return try converter.entry(fromJSON: users[index])
        } catch {
            throw .invalidUser(index: index, line: nil, reason: error.reason)
        }
    }
}

/// The records of a CSV file, each one user.
struct CSVImportReader: ImportReader {
    var records: CSVReader
    let converter: ImportEntryConverter
    private var index = 0

    init(records: CSVReader, converter: ImportEntryConverter) {
        self.records = records
        self.converter = converter
    }

    var bytesRead: Int { records.bytesRead }

    mutating func next() throws(UserFileError) -> JSONValue? {
        guard let record = try records.next() else { return nil }
        defer { index += 1 }
        do {
            return try converter.entry(fromCSV: record.fields)
        } catch {
            throw .invalidUser(index: index, line: record.line, reason: error.reason)
        }
    }
}
