/// Keeps what protects a data directory (its backups, its log archive) out of it, and it out of
/// them: a directory inside the data dies with its disk, and one that holds the data has its
/// files deleted or mixed with theirs.
public enum DirectoryOverlap {
    /// Why `directory` (called `name` in the message) cannot serve beside `dataDirectory`, or
    /// `nil`: the two must not be the same, nor one inside the other.
    public static func refusal(of directory: String, named name: String, dataDirectory: String) -> String? {
        guard DurableFiles.isSameOrInside(directory, dataDirectory) || DurableFiles.isSameOrInside(dataDirectory, directory) else {
            return nil
        }
        return "\(name) \(directory) and the data directory \(dataDirectory) must not be the same, nor one inside the other"
    }
}
