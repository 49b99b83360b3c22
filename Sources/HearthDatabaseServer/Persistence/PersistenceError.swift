/// Failures of the durable store.
public enum PersistenceError: Error, Sendable, CustomStringConvertible {
    /// A stored row could not be decoded.
    case corruptRow(String)
    /// SQLite refused an operation.
    case sqlite(String)
    /// The durable log (``NodeLog``) could not be read or written.
    case log(String)
    /// An earlier commit failed; the namespace accepts no more writes until restarted.
    case unavailable

    public var description: String {
        switch self {
        case .corruptRow(let key): "stored row \(key) could not be decoded"
        case .sqlite(let message): "SQLite: \(message)"
        case .log(let message): "durable log: \(message)"
        case .unavailable: "the database could not persist an earlier write and is read-only until restarted"
        }
    }
}
