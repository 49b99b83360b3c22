import HearthCore

/// Who performs a database operation.
public enum Caller: Sendable, Equatable {
    /// Administrative access (the `owner` credential): rules are not evaluated.
    case admin
    /// A client: rules are evaluated with this `auth` variable, JSON null when signed out.
    case client(auth: JSONValue)

    /// A client that is not signed in.
    public static let signedOut = Caller.client(auth: .null)
}
