import HearthCore
import Synchronization

/// What the products learn about a request while they serve it — whom it acts for, and why
/// rules refused it — collected for the requests feed.
///
/// A trace is bound to the serving task (``current``) only while someone follows the feed, so
/// that otherwise no request pays for it; products report to `RequestTrace.current?` and never
/// hold a trace themselves.
package final class RequestTrace: Sendable {
    /// What a trace holds.
    package struct Findings: Sendable {
        /// `admin`, the uid the request was authenticated as, or `nil`.
        package var user: String?
        /// The database namespace the request used.
        package var namespace: String?
        /// A product's account of a rules denial, as JSON the console renders.
        package var denial: JSONValue?

        package init(user: String? = nil, namespace: String? = nil, denial: JSONValue? = nil) {
            self.user = user
            self.namespace = namespace
            self.denial = denial
        }
    }

    /// The trace of the request the current task serves, when the feed is followed.
    @TaskLocal package static var current: RequestTrace?
    /// Whether the current task serves a request the console sends for an administrator.
    @TaskLocal package static var isFromConsole = false

    private let state = Mutex(Findings())

    package init() {}

    package var findings: Findings { state.withLock { $0 } }

    /// Records whom the request acts for.
    package func noteCaller(_ caller: Caller) {
        state.withLock { findings in
            switch caller {
            case .admin: findings.user = "admin"
            case .client(let auth):
                if case .string(let uid)? = auth["uid"] { findings.user = uid } else { findings.user = nil }
            }
        }
    }

    /// Records the database namespace the request used.
    package func noteNamespace(_ namespace: String) {
        state.withLock { $0.namespace = namespace }
    }

    /// Records why rules refused the request.
    package func noteDenial(_ denial: JSONValue) {
        state.withLock { $0.denial = denial }
    }
}
