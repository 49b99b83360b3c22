import HearthPasswords

/// The HTML bodies of the latest email previews, each under an unguessable token for the
/// preview frame to load: a frame cannot post the draft it shows. Only the newest few are kept.
actor EmailPreviews {
    static let kept = 16

    private var bodies: [(token: String, html: String)] = []

    /// Keeps `html` and returns its token.
    func keep(_ html: String) -> String {
        let token = ConsoleSessions.token()
        bodies.append((token, html))
        if bodies.count > Self.kept { bodies.removeFirst(bodies.count - Self.kept) }
        return token
    }

    func html(for token: String) -> String? {
        bodies.last { ConstantTime.equal(Array($0.token.utf8), Array(token.utf8)) }?.html
    }
}
