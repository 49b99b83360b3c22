import HearthEdge
import Metrics

/// What a server observes of realtime messages: how many arrive, and, while the requests feed
/// is followed, a record of each request.
struct RealtimeActivity: Sendable {
    let feed: RequestFeed?
    let messages: Counter

    /// The name the requests feed shows for a realtime action (protocol §5).
    static func method(of action: String) -> String {
        switch action {
        case "p": "set"
        case "m": "update"
        case "g": "get"
        case "q", "l": "listen"
        case "n", "u": "unlisten"
        case "o": "onDisconnect set"
        case "om": "onDisconnect update"
        case "oc": "onDisconnect cancel"
        case "s": "stats"
        default: action
        }
    }
}
