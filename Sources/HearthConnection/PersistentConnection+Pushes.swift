import HearthCore

extension PersistentConnection {
    /// Handles a data message of the current connection: a response or a push (protocol §4, §6).
    func receive(_ message: ServerMessage) {
        switch message {
        case .response(let number, let status, let data):
            responseHandlers.removeValue(forKey: number)?(status, data)
        case .push(let action, let body):
            receivePush(action, body: body)
        case .handshake, .redirect, .shutdown, .serverError, .ignoredControl:
            break
        }
    }

    private func receivePush(_ action: String, body: JSONValue) {
        switch action {
        case "d", "m":
            // A push without `d` carries nothing to apply.
            guard let path = pushPath(body), let data = body["d"] else { return }
            var tag: Int?
            if case .number(.int(let number))? = body["t"] { tag = Int(exactly: number) }
            delegate?.connection(self, didReceiveData: data, at: path, isMerge: action == "m", tag: tag)
        case "c":
            guard let path = pushPath(body) else { return }
            for listen in requests.removeListens(at: path) {
                delegate?.connection(self, didRevokeListenAt: listen.key.path, query: listen.query)
            }
        case "ac":
            authRefused(status: body["s"]?.stringValue ?? "", reason: body["d"]?.stringValue)
        case "sd":
            delegate?.connection(self, securityDebug: body["msg"]?.stringValue ?? "")
        default:
            // `apc` (App Check is not used), `rm` (only answers `ch`, never sent) and unknown pushes.
            logger.debug("ignoring push", metadata: ["action": "\(action)"])
        }
    }

    /// The push's `p`, which may end in `.priority`.
    private func pushPath(_ body: JSONValue) -> DatabasePath? {
        guard let text = body["p"]?.stringValue, let path = try? DatabasePath(writeLocation: text) else {
            logger.warning("ignoring push with an invalid path", metadata: ["body": "\(JSONWriter.string(body))"])
            return nil
        }
        return path
    }
}
