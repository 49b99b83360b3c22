/// Why `hearth migrate --to-postgres` stopped.
package enum MigrationError: Error, CustomStringConvertible {
    /// What PostgreSQL holds of `item`, read back after copying, is not what was copied.
    case mismatch(item: String, difference: String)
    /// PostgreSQL holds something of `item` that this migration did not write: a node served
    /// the database, or the data directory changed, since the migration began. Nothing of it is
    /// overwritten.
    case changedElsewhere(item: String, reason: String)
    /// The migration cannot begin or resume: `reason` says why.
    case refused(String)

    package var description: String {
        switch self {
        case .mismatch(let item, let difference): "\(item) differs in PostgreSQL after copying: \(difference)"
        case .changedElsewhere(let item, let reason):
            "\(item) in PostgreSQL is not what this migration wrote (\(reason)); nothing of it was overwritten"
        case .refused(let reason): reason
        }
    }
}
