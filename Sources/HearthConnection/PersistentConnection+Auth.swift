import Dispatch
import HearthCore

extension PersistentConnection {
    /// Sets the token sent in `auth` on every handshake before restoring (protocol §5.2). While
    /// connected, the change is sent at once: `auth` for a token, `unauth` for `nil`.
    ///
    /// After the server refused the token (see
    /// ``PersistentConnectionDelegate/connection(_:didRevokeAuth:reason:)``) the connection
    /// waits for this call before it connects again.
    public func setAuthToken(_ token: String?) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard token != authToken || awaitingToken else { return }
        authToken = token
        if isConnected {
            if let token { sendAuth(token) } else { sendUnauth() }
        }
        if awaitingToken {
            awaitingToken = false
            scheduleReconnect()
        }
    }

    /// Sends `auth`; when it is the handshake's, restoring follows its `ok`.
    func sendAuth(_ token: String) {
        authAttempt += 1
        let attempt = authAttempt
        sendRequest(.auth, body: .members([("cred", .string(token))])) { [weak self] status, data in
            guard let self, attempt == authAttempt else { return }
            if status == "ok" {
                restore()
            } else {
                authRefused(status: status, reason: data.stringValue)
            }
        }
    }

    private func sendUnauth() {
        authAttempt += 1
        let attempt = authAttempt
        sendRequest(.unauth, body: .object([])) { [weak self] _, _ in
            guard let self, attempt == authAttempt else { return }
            restore()
        }
    }

    /// The server refused the token or revoked it (`ac`): drop it, close, and wait for a new one
    /// (protocol §5.2, §6.4).
    func authRefused(status: String, reason: String?) {
        logger.warning("authentication failed: \(status)", metadata: ["reason": "\(reason ?? "")"])
        authToken = nil
        awaitingToken = true
        connectionLost()
        delegate?.connection(self, didRevokeAuth: status, reason: reason)
    }
}
