import HearthCore

/// What a ``PersistentConnection`` tells its owner. Every call runs on the connection's queue.
public protocol PersistentConnectionDelegate: AnyObject {
    /// A `d` (overwrite) or `m` (merge, `data` maps relative paths to values) push at `path`;
    /// `tag` names the tagged query it belongs to.
    func connection(
        _ connection: PersistentConnection, didReceiveData data: JSONValue, at path: DatabasePath, isMerge: Bool, tag: Int?)

    /// A `c` push revoked the listen at `path` with `query` (the wire query it was sent with, or
    /// `nil` for a default listen). A `c` push revokes every listen at its path, so this runs
    /// once per listen; they are forgotten without an unlisten. A listen the server refuses
    /// outright is reported through its completion instead.
    func connection(_ connection: PersistentConnection, didRevokeListenAt path: DatabasePath, query: JSONValue?)

    /// The handshake arrived: the connection is up, possibly before its `auth` is answered.
    /// `milliseconds` is the server's clock minus this one (`.info/serverTimeOffset`).
    func connectionDidConnect(_ connection: PersistentConnection, serverTimeOffset milliseconds: Int64)

    /// A connection that had called ``connectionDidConnect(_:serverTimeOffset:)`` ended.
    func connectionDidDisconnect(_ connection: PersistentConnection)

    /// The server stopped accepting the auth token: an `ac` push, or an `auth` request answered
    /// with a failure (`status` is `invalid_token`, `expired_token`, …). The connection dropped
    /// the token, closed, and reconnects only once
    /// ``PersistentConnection/setAuthToken(_:)`` is called again (with a fresh token, or `nil`
    /// to go on signed out).
    func connection(_ connection: PersistentConnection, didRevokeAuth status: String, reason: String?)

    /// An `sd` push: text explaining a rules decision, for logging.
    func connection(_ connection: PersistentConnection, securityDebug message: String)
}
