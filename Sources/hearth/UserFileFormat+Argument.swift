import ArgumentParser
import HearthUserFiles

extension UserFileFormat: ExpressibleByArgument {
    /// `explicit` when given, else the format the file's extension names.
    static func of(_ file: String, explicit: UserFileFormat?) throws -> UserFileFormat {
        if let explicit { return explicit }
        guard let format = UserFileFormat(extensionOf: file) else {
            throw ValidationError("Cannot tell the format of \(file) from its extension: name it .json or .csv, or pass --format.")
        }
        return format
    }
}
