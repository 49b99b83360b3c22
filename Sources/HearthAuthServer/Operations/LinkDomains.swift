extension AuthService {
    static let invalidHostingLinkDomain = AuthError.code(
        "INVALID_HOSTING_LINK_DOMAIN",
        """
        The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project. \
        This cannot be a default hosting domain (web.app or firebaseapp.com).
        """)

    /// Where an action link points when `sendOobCode` names a `linkDomain` (auth spec §2.9), in
    /// both modes: Firebase takes only the project's own Hosting domains, never the default
    /// `<project>.web.app` and `<project>.firebaseapp.com`. Hearth's counterparts of Hosting
    /// domains are the public URL's host (the link keeps the public URL's scheme and port) and
    /// the `--authorized-domain` hosts (`https://<domain>`, which must serve or forward Hearth's
    /// action page); any other domain is `INVALID_HOSTING_LINK_DOMAIN`. Without a `linkDomain`,
    /// the call's own origin.
    func linkOrigin(_ body: AuthRequestBody, _ call: AuthCall) throws(AuthError) -> String {
        guard let domain = try body.string("linkDomain")?.lowercased(), !domain.isEmpty else { return call.origin }
        if domain == URLParts.host(of: settings.publicURL) { return settings.publicOrigin }
        guard settings.authorizedDomains.contains(domain) else { throw Self.invalidHostingLinkDomain }
        return "https://\(domain)"
    }
}
