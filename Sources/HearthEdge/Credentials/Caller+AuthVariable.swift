import HearthCore

extension Caller {
    /// What rules see as `auth`, as sent back in a realtime auth response.
    package var authVariable: JSONValue {
        switch self {
        case .admin: .null
        case .client(let auth): auth
        }
    }
}
