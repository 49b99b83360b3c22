/// The names the rules files in use take in a backup's `rules/` directory (and in the data
/// directory a backup is restored into).
public enum BackupRulesFiles {
    public static let directory = "rules"
    public static let database = "database.rules.json"
    public static let storage = "storage.rules"

    /// The backup's names of the rules files at `database` and `storage`, those given.
    public static func named(database: String?, storage: String?) -> [String: String] {
        var files: [String: String] = [:]
        files[Self.database] = database
        files[Self.storage] = storage
        return files
    }
}
