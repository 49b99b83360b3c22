import HearthEdge

/// Signed-in console administrators (production), in memory: a restart signs everyone out.
///
/// A session is named by 32 random bytes in an HttpOnly, SameSite=Strict cookie and carries a
/// CSRF token of its own, which every change must echo in a header. It ends after
/// ``idleLifetime`` without a request, after ``absoluteLifetime`` in any case, or at sign-out.
package actor ConsoleSessions {
    /// One signed-in administrator.
    package struct Session: Sendable {
        package let email: String
        package let csrfToken: String
        let started: ContinuousClock.Instant
        var lastUsed: ContinuousClock.Instant
    }

    static let idleLifetime: Duration = .seconds(12 * 3600)
    static let absoluteLifetime: Duration = .seconds(7 * 24 * 3600)

    private var sessions: [String: Session] = [:]

    package init() {}

    /// Starts a session for `email`; returns its identifier (the cookie's value).
    package func start(email: String) -> (id: String, session: Session) {
        removeExpired()
        let now = ContinuousClock.now
        let id = Self.token()
        let session = Session(email: email, csrfToken: Self.token(), started: now, lastUsed: now)
        sessions[id] = session
        return (id, session)
    }

    /// The live session `id` names, its idle time restarted; `nil` when there is none.
    package func session(_ id: String) -> Session? {
        guard var session = sessions[id] else { return nil }
        let now = ContinuousClock.now
        guard now - session.lastUsed < Self.idleLifetime, now - session.started < Self.absoluteLifetime else {
            sessions[id] = nil
            return nil
        }
        session.lastUsed = now
        sessions[id] = session
        return session
    }

    package func end(_ id: String) {
        sessions[id] = nil
    }

    private func removeExpired() {
        let now = ContinuousClock.now
        sessions = sessions.filter { now - $0.value.lastUsed < Self.idleLifetime && now - $0.value.started < Self.absoluteLifetime }
    }

    /// 32 random bytes in base64url.
    static func token() -> String {
        Base64URL.encode(ConsoleAdministrators.randomBytes(32))
    }
}
