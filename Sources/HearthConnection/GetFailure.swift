/// Why a one-shot read (``PersistentConnection/get(path:query:completion:)``) failed.
public enum GetFailure: Error, Sendable, Equatable {
    /// The client had no connection to send the read on within
    /// ``PersistentConnection/getOfflineTimeout`` seconds (status `failed`, "Client is offline.").
    case offline
    /// The server refused the read: its status (`permission_denied`, `failed`, …) and message.
    case server(status: String, message: String?)

    /// The protocol status the failure stands for.
    public var status: String {
        switch self {
        case .offline: "failed"
        case .server(let status, _): status
        }
    }

    /// A text to show: the server's message, or "Client is offline.".
    public var message: String? {
        switch self {
        case .offline: "Client is offline."
        case .server(_, let message): message
        }
    }
}
