import Foundation
import HearthCore

/// Writes exported users to a file, a page at a time, as Firebase's CLI lays them out:
/// `{"users": [...]}` with one indented object per user, or one CSV line per user.
struct UserFileWriter {
    private let path: String
    private let format: UserFileFormat
    private let handle: FileHandle
    private var count = 0

    init(path: String, format: UserFileFormat) throws(UserFileError) {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw .unwritable(path: path, reason: "the file cannot be created")
        }
        self.path = path
        self.format = format
        self.handle = handle
        if format == .json { try write("{\"users\": [") }
    }

    /// Appends `users` (as `accounts:batchGet` gives them).
    mutating func write(_ users: [JSONValue]) throws(UserFileError) {
        var text = ""
        for user in users {
            let exported = ExportedUser(user)
            switch format {
            case .json: text += (count == 0 ? "\n" : ",\n") + JSONWriter.string(exported.json, pretty: true)
            case .csv: text += exported.csvLine + "\n"
            }
            count += 1
        }
        try write(text)
    }

    /// Ends the file and closes it.
    func close() throws(UserFileError) {
        if format == .json { try write("\n]}\n") }
        do {
            try handle.close()
        } catch {
            throw .unwritable(path: path, reason: "\(error)")
        }
    }

    private func write(_ text: String) throws(UserFileError) {
        do {
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw .unwritable(path: path, reason: "\(error)")
        }
    }
}
