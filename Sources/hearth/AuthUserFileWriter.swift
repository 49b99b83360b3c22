import Foundation
import HearthCore
import HearthUserFiles

/// Writes exported users to a file, a page at a time (see ``UserFileEncoder``).
struct UserFileWriter {
    private let path: String
    private var encoder: UserFileEncoder
    private let handle: FileHandle

    init(path: String, format: UserFileFormat) throws(UserFileError) {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw .unwritable(path: path, reason: "the file cannot be created")
        }
        self.path = path
        self.handle = handle
        encoder = UserFileEncoder(format: format)
        try write(encoder.opening)
    }

    /// Appends `users` (as `accounts:batchGet` gives them).
    mutating func write(_ users: [JSONValue]) throws(UserFileError) {
        try write(encoder.encode(users))
    }

    /// Ends the file and closes it.
    func close() throws(UserFileError) {
        try write(encoder.closing)
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
