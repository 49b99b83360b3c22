import HearthCore

/// REST ETags: the node hash of the current value, or `null_etag` for a missing location.
public enum ETag {
    /// The ETag of a location holding nothing.
    public static let null = "null_etag"

    public static func of(_ node: Node) -> String {
        node.isNull ? null : NodeHash.hash(node)
    }
}
