import Foundation
import HearthCore

/// An import file, opened: it can be read through more than once (a first time to check every
/// user before anything is sent). A JSON file is parsed once and kept; a CSV file is read again
/// from disk each time, a chunk at a time.
enum ImportSource {
    case json(users: [JSONValue], size: Int)
    case csv(path: String, size: Int)

    init(path: String, format: UserFileFormat) throws(UserFileError) {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else {
            throw .unreadable(path: path)
        }
        switch format {
        case .csv:
            self = .csv(path: path, size: size)
        case .json:
            guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
            let document: JSONValue
            do {
                document = try JSONParser.parse([UInt8](data))
            } catch {
                throw .notAUserFile(path: path, reason: error.description)
            }
            guard case .array(let users)? = document["users"] else {
                throw .notAUserFile(path: path, reason: #"expected {"users": [...]}"#)
            }
            self = .json(users: users, size: size)
        }
    }

    /// The file's size in bytes.
    var size: Int {
        switch self {
        case .json(_, let size), .csv(_, let size): size
        }
    }

    /// A reader from the first user on.
    func reader(_ converter: ImportEntryConverter) throws(UserFileError) -> any ImportReader {
        switch self {
        case .json(let users, let size): JSONImportReader(users: users, size: size, converter: converter)
        case .csv(let path, _): CSVImportReader(records: try CSVReader(path: path), converter: converter)
        }
    }
}

/// The users of an import file, one at a time as batchCreate entries.
protocol ImportReader {
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
