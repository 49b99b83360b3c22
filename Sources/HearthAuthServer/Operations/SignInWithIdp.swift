import HearthCore
import HearthEdge

extension AuthService {
    /// `accounts:signInWithIdp` (auth spec §2.4): signs in with, or (with `idToken`) links, the
    /// identity a provider's credential stands for.
    ///
    /// One account per email (the default): an identity whose verified email belongs to an account
    /// signs into it (taking it over if that email was never verified); an unverified one gets
    /// `needConfirmation` and changes nothing. With `returnIdpCredential`, the conflicts
    /// `FEDERATED_USER_ID_ALREADY_LINKED` and `EMAIL_EXISTS` are answered 200 with `errorMessage`.
    func signInWithIdp(_ body: AuthRequestBody, _ call: AuthCall) async throws(AuthError) -> JSONValue {
        let requestUri = try body.required("requestUri", else: .code("MISSING_REQUEST_URI"))
        guard Self.isAbsoluteURL(requestUri) else { throw .code("INVALID_REQUEST_URI") }
        if body.has("pendingIdToken") || body.has("returnRefreshToken") {
            throw .notImplemented("pendingIdToken and returnRefreshToken are not implemented.")
        }
        var credential = try Self.credentialFields(requestUri: requestUri, postBody: try body.string("postBody"))
        guard let providerId = credential["providerId"]?.lowercased(), !providerId.isEmpty else {
            throw .code("INVALID_CREDENTIAL_OR_PROVIDER_ID", "Invalid IdP response/credential: \(requestUri)")
        }
        // The project's configuration of an OpenID Connect provider (ids are matched as the
        // provider id is read, case-insensitively).
        let oidc: OIDCProviderConfig? =
            providerId.hasPrefix("oidc.")
            ? try await directory.read { state in state.providers.oidc.first { $0.key.lowercased() == providerId }?.value } : nil
        let identity = try await identities.identity(
            providerId: providerId, credential: credential, requestUri: requestUri, oidc: oidc, now: call.now)
        credential.merge(identity.obtainedCredential) { _, obtained in obtained }
        // The identity's profile is stored as a provider entry, and copied to a new account.
        do {
            try AccountLimits.check(identity.linkedProvider)
        } catch {
            throw .code("INVALID_IDP_RESPONSE", error.message)
        }
        let returnsCredential = try body.bool("returnIdpCredential") ?? false
        let linking: (UserRecord, JWTClaims)? =
            if let idToken = try body.string("idToken") { try await user(forIDToken: idToken, call) } else { nil }
        let outcome: IdpOutcome
        do {
            outcome = try await directory.change { (state: inout AuthDirectory.State) throws(AuthError) -> IdpOutcome in
                try Self.resolve(identity, linking: linking?.0, in: &state, call)
            }
        } catch {
            guard returnsCredential, ["FEDERATED_USER_ID_ALREADY_LINKED", "EMAIL_EXISTS"].contains(error.message) else { throw error }
            return .object(
                Self.identityMembers(identity, credential: credential) + [
                    JSONMember(key: "errorMessage", value: .string(error.message))
                ])
        }
        var members = [JSONMember(key: "kind", value: .string("identitytoolkit#VerifyAssertionResponse"))]
        members += Self.identityMembers(identity, credential: credential)
        switch outcome {
        case .needsConfirmation(let existing):
            members.append(JSONMember(key: "localId", value: .string(existing.localId)))
            members.append(JSONMember(key: "needConfirmation", value: .bool(true)))
            members.append(
                JSONMember(key: "verifiedProvider", value: .array(existing.providers.map { .string($0.providerId) })))
            return .object(members)
        case .signedIn(let user, let isNew, let recycled):
            members.append(JSONMember(key: "localId", value: .string(user.localId)))
            if isNew { members.append(JSONMember(key: "isNewUser", value: .bool(true))) }
            if recycled { members.append(JSONMember(key: "emailRecycled", value: .bool(true))) }
            members += try await tokenTriple(for: user, provider: providerId, call)
            return .object(members)
        }
    }

    /// What a federated sign-in did.
    enum IdpOutcome: Sendable {
        case signedIn(UserRecord, isNew: Bool, emailRecycled: Bool)
        /// The identity's email belongs to an account and the provider does not vouch for it.
        case needsConfirmation(UserRecord)
    }

    /// Decides and applies a federated sign-in or link inside one directory change.
    private static func resolve(
        _ identity: FederatedIdentity, linking: UserRecord?, in state: inout AuthDirectory.State, _ call: AuthCall
    ) throws(AuthError) -> IdpOutcome {
        let owner = state.users.user(federatedBy: identity.providerId, rawId: identity.rawId)
        let uniqueEmails = !state.config.allowDuplicateEmails
        if let linking {
            guard var user = state.users[linking.localId] else { throw .code("USER_NOT_FOUND") }
            if owner != nil { throw .code("FEDERATED_USER_ID_ALREADY_LINKED") }
            if uniqueEmails, let email = identity.email,
                state.users.users(withEmail: email).contains(where: { $0.localId != user.localId })
            {
                throw .code("EMAIL_EXISTS")
            }
            link(identity, to: &user)
            if user.email == nil, let email = identity.email {
                user.email = email
                user.emailVerified = identity.emailVerified
            } else if user.email == identity.email, identity.emailVerified {
                user.emailVerified = true
            }
            user.lastLoginAt = call.nowMilliseconds
            state.users.put(user)
            return .signedIn(user, isNew: false, emailRecycled: false)
        }
        if var user = owner {
            if user.disabled { throw .code("USER_DISABLED") }
            link(identity, to: &user)
            user.lastLoginAt = call.nowMilliseconds
            state.users.put(user)
            return .signedIn(user, isNew: false, emailRecycled: false)
        }
        if uniqueEmails, let email = identity.email, var user = state.users.users(withEmail: email).first {
            guard identity.emailVerified else { return .needsConfirmation(user) }
            if user.disabled { throw .code("USER_DISABLED") }
            let recycled = user.providers.contains { $0.providerId == identity.providerId }
            if user.emailVerified != true {
                // An unverified owner of the address loses everything but the address to the verified identity.
                user.password = nil
                user.phoneNumber = nil
                user.providers = []
                user.validSince = call.now
                user.displayName = identity.displayName
                user.photoUrl = identity.photoUrl
            }
            user.emailVerified = true
            link(identity, to: &user)
            user.lastLoginAt = call.nowMilliseconds
            state.users.put(user)
            return .signedIn(user, isNew: false, emailRecycled: recycled)
        }
        var user = UserRecord(localId: AuthFormats.newUID(), createdAt: call.nowMilliseconds)
        if uniqueEmails, let email = identity.email {
            user.email = email
            user.emailVerified = identity.emailVerified
        }
        user.displayName = identity.displayName
        user.photoUrl = identity.photoUrl
        link(identity, to: &user)
        user.lastLoginAt = call.nowMilliseconds
        user.lastRefreshAt = call.nowMilliseconds
        state.users.put(user)
        return .signedIn(user, isNew: true, emailRecycled: false)
    }

    /// Adds the identity's provider entry, replacing an earlier one of the same provider.
    private static func link(_ identity: FederatedIdentity, to user: inout UserRecord) {
        user.providers.removeAll { $0.providerId == identity.providerId }
        user.providers.append(identity.linkedProvider)
    }

    /// `requestUri`'s query parameters, overridden by those of `postBody`, then by those of the
    /// URI's fragment.
    private static func credentialFields(requestUri: String, postBody: String?) throws(AuthError) -> [String: String] {
        var withoutFragment = Substring(requestUri)
        var fragment: Substring = ""
        if let hash = requestUri.firstIndex(of: "#") {
            withoutFragment = requestUri[..<hash]
            fragment = requestUri[requestUri.index(after: hash)...]
        }
        var fields: [String: String] = [:]
        if let question = withoutFragment.firstIndex(of: "?") {
            fields = QueryString.parameters(String(withoutFragment[withoutFragment.index(after: question)...]))
        }
        fields.merge(QueryString.parameters(postBody ?? "")) { _, new in new }
        fields.merge(QueryString.parameters(String(fragment))) { _, new in new }
        fields[""] = nil
        return fields
    }

    /// The provider's view of the user, as every `signInWithIdp` answer carries it.
    private static func identityMembers(_ identity: FederatedIdentity, credential: [String: String]) -> [JSONMember] {
        let fullName = identity.displayName
        let pairs: [(String, JSONValue?)] = [
            ("providerId", .string(identity.providerId)),
            ("federatedId", .string(identity.federatedId)),
            ("rawUserInfo", .string(JSONWriter.string(identity.rawUserInfo))),
            ("email", identity.email.map(JSONValue.string)),
            ("emailVerified", .bool(identity.emailVerified)),
            ("displayName", identity.displayName.map(JSONValue.string)),
            ("fullName", fullName.map(JSONValue.string)),
            ("firstName", identity.firstName.map(JSONValue.string)),
            ("lastName", identity.lastName.map(JSONValue.string)),
            ("screenName", identity.screenName.map(JSONValue.string)),
            ("photoUrl", identity.photoUrl.map(JSONValue.string)),
            ("oauthIdToken", credential["id_token"].map(JSONValue.string)),
            (
                "oauthAccessToken",
                .string(credential["access_token"] ?? "FirebaseAuthEmulatorFakeAccessToken_\(identity.providerId)")
            ),
            ("oauthTokenSecret", credential["oauth_token_secret"].map(JSONValue.string)),
            ("context", .string("")),
        ]
        return pairs.compactMap { key, value in value.map { JSONMember(key: key, value: $0) } }
    }
}
