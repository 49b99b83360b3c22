/// What `hearth migrate --to-postgres` found in PostgreSQL, read back after copying, that is not
/// what it copied from the data directory.
package struct MigrationMismatch: Error, CustomStringConvertible {
    /// The product and item that differ, such as "database namespace chat".
    package let item: String
    /// How they differ.
    package let difference: String

    package init(item: String, difference: String) {
        self.item = item
        self.difference = difference
    }

    package var description: String { "\(item) differs in PostgreSQL after copying: \(difference)" }
}
