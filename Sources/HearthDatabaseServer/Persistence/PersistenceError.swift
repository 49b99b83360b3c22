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
    /// PostgreSQL refused an operation or could not be reached.
    case postgres(String)
    /// Another node owns the namespace now (``PostgresNamespaces``): this one may not write it;
    /// PostgreSQL's refusal names the namespace and the epoch lost.
    case deposed(String)
    /// Another node holds a lease on the namespace; `address` is where that node serves clients
    /// (`host:port`).
    case ownedElsewhere(namespace: String, address: String)

    public var description: String {
        switch self {
        case .corruptRow(let key): "stored row \(key) could not be decoded"
        case .sqlite(let message): "SQLite: \(message)"
        case .log(let message): "durable log: \(message)"
        case .unavailable: "the database could not persist an earlier write and is read-only until restarted"
        case .postgres(let message): "PostgreSQL: \(message)"
        case .deposed(let refusal): "\(refusal)"
        case .ownedElsewhere(let namespace, let address): "namespace \(namespace) is served by the node at \(address)"
        }
    }
}
