#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where namespaces live on disk: one SQLite database per namespace, `<name>.sqlite` (with its
/// `-wal` and `-shm` companions) under `<data dir>/database/`, and the durable log of them all in
/// `log/` beside them. A namespace exists when its file does.
public struct NamespaceFiles: Sendable {
    /// The folder that holds the namespaces' files.
    public let directory: String

    /// The namespaces of the data directory `dataDirectory`.
    public init(dataDirectory: String) {
        self.directory = dataDirectory + "/database"
    }

    /// The folder of the node's durable log (``NodeLog``).
    /// Where the data directory records which log archive holds its history
    /// (``LogArchiveIdentity``).
    var archiveIdentityPath: String { directory + "/" + LogArchiveIdentity.fileName }

    var logDirectory: String {
        directory + "/log"
    }

    /// The database file of namespace `name`.
    public func path(of name: String) -> String {
        "\(directory)/\(name).sqlite"
    }

    /// Whether namespace `name` exists: whether its file does.
    public func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path(of: name))
    }

    /// The names of the namespaces that exist, sorted.
    public func names() throws -> [String] {
        guard FileManager.default.fileExists(atPath: directory) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".sqlite") }
            .map { String($0.dropLast(".sqlite".count)) }
            .sorted()
    }

    /// Creates the folder of the namespaces' files if it does not exist.
    func createDirectory() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Removes namespace `name`'s files; whether it existed. The log files go first, so that an
    /// interrupted delete never leaves a log that a new namespace of the same name would replay.
    public func delete(_ name: String) throws -> Bool {
        guard exists(name) else { return false }
        for suffix in ["-wal", "-shm", ""] where FileManager.default.fileExists(atPath: path(of: name) + suffix) {
            try FileManager.default.removeItem(atPath: path(of: name) + suffix)
        }
        return true
    }

    /// Letters, digits, `-` and `_`, 1 to 63 characters: safe as a file name.
    public static func isValidName(_ name: String) -> Bool {
        guard (1...63).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
