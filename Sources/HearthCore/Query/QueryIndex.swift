/// What a query orders children by.
public enum QueryIndex: Sendable, Hashable, CustomStringConvertible {
    /// Priorities (the default order).
    case priority
    /// Keys (`orderByKey`).
    case key
    /// The children's own values (`orderByValue`).
    case value
    /// The value at a path below each child (`orderByChild("a/b")`).
    case child(DatabasePath)

    /// The value `child` is ordered by under this index.
    public func indexValue(of child: Node, key: ChildKey) -> IndexValue {
        switch self {
        case .priority: IndexValue(child.priority)
        case .key: .string(key.string)
        case .value: IndexValue(child)
        case .child(let path): IndexValue(child.child(at: path))
        }
    }

    /// The name `.indexOn` uses: `.value` or the child path (`a/b`); key and priority need none.
    public var indexOnName: String? {
        switch self {
        case .key, .priority: nil
        case .value: ".value"
        case .child(let path): path.slashless
        }
    }

    public var description: String {
        switch self {
        case .priority: "$priority"
        case .key: "$key"
        case .value: "$value"
        case .child(let path): path.slashless
        }
    }
}
