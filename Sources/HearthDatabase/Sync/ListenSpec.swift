import HearthCore

/// A listen the client holds on the server: the default listen of a path (no tag), or a tagged
/// query listen (wire protocol §7.2).
struct ListenSpec: Hashable {
    let path: DatabasePath
    let tag: Int?
}
