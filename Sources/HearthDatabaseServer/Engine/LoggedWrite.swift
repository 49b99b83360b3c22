import HearthCore
import HearthEdge

/// One applied write as the namespace's write log keeps it: when, for whom and through which
/// transport it was made, and for each location it replaced the node there before and after.
struct LoggedWrite: Sendable {
    /// One replaced location.
    struct Change: Sendable {
        let path: DatabasePath
        /// The node replaced, or `nil` when it was too large to keep (at least
        /// ``NamespaceEngine/largeSubtree`` nodes): history cannot go back past this write there.
        let before: Node?
        let after: Node
    }

    /// When the write was applied, in ms since 1970.
    let time: Int64
    let caller: Caller
    let transport: WriteTransport
    let changes: [Change]

    /// The author as the log records it: `{"admin": true}`, `{"uid": …, "provider": …}`, or
    /// `{}` for a client not signed in.
    var author: JSONValue {
        switch caller {
        case .admin:
            return .object([JSONMember(key: "admin", value: .bool(true))])
        case .client(let auth):
            var members: [JSONMember] = []
            if case .string(let uid)? = auth["uid"] { members.append(JSONMember(key: "uid", value: .string(uid))) }
            if case .string(let provider)? = auth["provider"] {
                members.append(JSONMember(key: "provider", value: .string(provider)))
            }
            return .object(members)
        }
    }
}
