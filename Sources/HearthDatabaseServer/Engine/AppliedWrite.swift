import HearthCore

/// One write as the engine applied it: where, what, and the whole tree before and after.
///
/// Listeners, indexes and persistence derive everything they need from this value.
struct AppliedWrite: Sendable {
    enum Kind: Sendable {
        /// The node at `path` was replaced.
        case set
        /// Each of these paths (absolute, below `path`) was replaced.
        case merge([DatabasePath])
    }

    let path: DatabasePath
    let kind: Kind
    let before: Node
    let after: Node

    /// The locations whose subtrees this write replaced.
    var touchedPaths: [DatabasePath] {
        switch kind {
        case .set: [path]
        case .merge(let paths): paths
        }
    }
}
